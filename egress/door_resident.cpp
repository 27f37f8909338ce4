// What of the door's own binary stays resident. The door is static (OpenSSL inside): its
// read-only segments are 5 MiB, and on a page fault the kernel maps, beside the page, every
// page of the 64 KiB around it that is in the page cache ("fault-around"). The code a door runs
// is spread thin over OpenSSL, so nearly every 64 KiB window holds some of it, and RSS counted
// all of the text (measured: 3.7 of 3.75 MiB after ten requests). Fault-around stops at the
// bounds of a mapping (VMA), so the door cuts its read-only segments into VMAs of kChunk bytes:
// every other chunk gets MADV_DONTDUMP, a flag that changes nothing else here (the door dumps
// no core: RLIMIT_CORE 0, not dumpable), and neighbours with different flags never merge. Once
// confined, MADV_DONTNEED drops the pages only the start touched (config, PEM, JSON, seccomp,
// Landlock): they stay in the page cache and come back on a touch; and the heap's free pages go
// back (malloc_trim). Writable segments (data, RELRO: relocated in memory) are never touched
// here. Both best effort: a refused advice costs RSS, never a check.
// The price: ~1,250 VMAs, about 0.27 MiB of kernel memory per door, for pages that are one
// page-cache copy shared by every door of the host: RSS drops more than memory does
// (docs/egress.md, "Size and speed"). 16 KiB chunks left 4.4 of 5.5 MiB resident.
#include <link.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "egress/door.hpp"

#undef p_type  // resolv.h (through egress/resolve.hpp) names a function so

namespace sh::egress {
namespace {

constexpr uintptr_t kChunk = 4096;

struct Range {
  uintptr_t start, end;
};

// The main program's read-only PT_LOAD segments, whole pages only (the first object
// dl_iterate_phdr reports is the program itself).
std::vector<Range> read_only_segments() {
  std::vector<Range> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* v = static_cast<std::vector<Range>*>(data);
        uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& p = info->dlpi_phdr[i];
          if (p.p_type != PT_LOAD || (p.p_flags & PF_W)) continue;
          uintptr_t s = (info->dlpi_addr + p.p_vaddr + page - 1) & ~(page - 1);
          uintptr_t e = (info->dlpi_addr + p.p_vaddr + p.p_memsz) & ~(page - 1);
          if (e > s) v->push_back({s, e});
        }
        return 1;  // the program only, not the vDSO
      },
      &out);
  return out;
}

}  // namespace

void text_fault_single_pages() {
  for (const Range& r : read_only_segments())
    for (uintptr_t at = r.start + kChunk; at < r.end; at += 2 * kChunk)
      (void)::madvise(reinterpret_cast<void*>(at), std::min(kChunk, r.end - at), MADV_DONTDUMP);
}

void text_drop_start_pages() {
  ::malloc_trim(0);  // the heap the start freed (the parsed config, PEM text), back to the kernel
  for (const Range& r : read_only_segments()) (void)::madvise(reinterpret_cast<void*>(r.start), r.end - r.start, MADV_DONTNEED);
}

}  // namespace sh::egress
