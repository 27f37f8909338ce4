// parse_mount_options: every class of runc mount option.
#define BOOST_TEST_MODULE mount_options
#include <sys/mount.h>

#include <boost/test/unit_test.hpp>

#include "runtime/linux/rootfs.hpp"

using sh::rootfs::parse_mount_options;

namespace {
sh::rootfs::MountFlags parse(std::initializer_list<const char*> opts) {
  std::vector<std::string> v(opts.begin(), opts.end());
  return parse_mount_options(v);
}
}  // namespace

BOOST_AUTO_TEST_CASE(empty_and_defaults) {
  auto f = parse({});
  BOOST_TEST(f.flags == 0u);
  BOOST_TEST(f.propagation == 0u);
  BOOST_TEST(f.data.empty());
  BOOST_TEST(!f.recursive_attrs);
  f = parse({"defaults", ""});
  BOOST_TEST(f.flags == 0u);
  BOOST_TEST(f.data.empty());
}

BOOST_AUTO_TEST_CASE(set_flags) {
  struct {
    const char* name;
    unsigned long flag;
  } cases[] = {{"ro", MS_RDONLY},           {"nosuid", MS_NOSUID},     {"nodev", MS_NODEV},
               {"noexec", MS_NOEXEC},       {"sync", MS_SYNCHRONOUS},  {"dirsync", MS_DIRSYNC},
               {"remount", MS_REMOUNT},     {"mand", MS_MANDLOCK},     {"noatime", MS_NOATIME},
               {"nodiratime", MS_NODIRATIME}, {"relatime", MS_RELATIME}, {"strictatime", MS_STRICTATIME},
               {"lazytime", MS_LAZYTIME},   {"iversion", MS_I_VERSION}, {"silent", MS_SILENT},
               {"nosymfollow", MS_NOSYMFOLLOW}, {"bind", MS_BIND},      {"rbind", MS_BIND | MS_REC}};
  for (auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto f = parse({c.name});
      BOOST_TEST(f.flags == c.flag);
      BOOST_TEST(f.clear_flags == 0u);
      BOOST_TEST(f.data.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(clearing_flags) {
  struct {
    const char* set;
    const char* clear;
    unsigned long flag;
  } cases[] = {{"ro", "rw", MS_RDONLY},          {"nosuid", "suid", MS_NOSUID},
               {"nodev", "dev", MS_NODEV},       {"noexec", "exec", MS_NOEXEC},
               {"sync", "async", MS_SYNCHRONOUS}, {"mand", "nomand", MS_MANDLOCK},
               {"noatime", "atime", MS_NOATIME}, {"nodiratime", "diratime", MS_NODIRATIME},
               {"relatime", "norelatime", MS_RELATIME}, {"strictatime", "nostrictatime", MS_STRICTATIME},
               {"lazytime", "nolazytime", MS_LAZYTIME}, {"nosymfollow", "symfollow", MS_NOSYMFOLLOW},
               {"silent", "loud", MS_SILENT},    {"iversion", "noiversion", MS_I_VERSION}};
  for (auto& c : cases) {
    BOOST_TEST_CONTEXT(c.set << " then " << c.clear) {
      auto f = parse({c.set, c.clear});
      BOOST_TEST((f.flags & c.flag) == 0u);
      BOOST_TEST((f.clear_flags & c.flag) == c.flag);
      // and the other way round: the last word wins
      f = parse({c.clear, c.set});
      BOOST_TEST((f.flags & c.flag) == c.flag);
      BOOST_TEST((f.clear_flags & c.flag) == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(atime_modes_exclude_each_other) {
  auto f = parse({"noatime", "strictatime"});
  BOOST_TEST(f.flags == MS_STRICTATIME);
  f = parse({"strictatime", "relatime"});
  BOOST_TEST(f.flags == MS_RELATIME);
  f = parse({"nodiratime", "noatime"});
  BOOST_TEST(f.flags == (MS_NODIRATIME | MS_NOATIME));
}

BOOST_AUTO_TEST_CASE(propagation) {
  struct {
    const char* name;
    unsigned long prop;
  } cases[] = {{"private", MS_PRIVATE},       {"rprivate", MS_PRIVATE | MS_REC},
               {"shared", MS_SHARED},         {"rshared", MS_SHARED | MS_REC},
               {"slave", MS_SLAVE},           {"rslave", MS_SLAVE | MS_REC},
               {"unbindable", MS_UNBINDABLE}, {"runbindable", MS_UNBINDABLE | MS_REC}};
  for (auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto f = parse({"rbind", c.name});
      BOOST_TEST(f.propagation == c.prop);
      BOOST_TEST(f.flags == (MS_BIND | MS_REC));  // propagation never leaks into flags
      BOOST_TEST(f.data.empty());
    }
  }
  BOOST_TEST(parse({"rshared", "rslave"}).propagation == (MS_SLAVE | MS_REC));
}

BOOST_AUTO_TEST_CASE(recursive_attributes) {
  struct {
    const char* name;
    uint64_t set, clr;
  } cases[] = {
      {"rro", MOUNT_ATTR_RDONLY, 0},          {"rrw", 0, MOUNT_ATTR_RDONLY},
      {"rnosuid", MOUNT_ATTR_NOSUID, 0},      {"rsuid", 0, MOUNT_ATTR_NOSUID},
      {"rnodev", MOUNT_ATTR_NODEV, 0},        {"rdev", 0, MOUNT_ATTR_NODEV},
      {"rnoexec", MOUNT_ATTR_NOEXEC, 0},      {"rexec", 0, MOUNT_ATTR_NOEXEC},
      {"rnodiratime", MOUNT_ATTR_NODIRATIME, 0}, {"rdiratime", 0, MOUNT_ATTR_NODIRATIME},
      {"rnosymfollow", MOUNT_ATTR_NOSYMFOLLOW, 0}, {"rsymfollow", 0, MOUNT_ATTR_NOSYMFOLLOW},
      // atime is an enum: every atime option replaces the whole field
      {"rnoatime", MOUNT_ATTR_NOATIME, MOUNT_ATTR__ATIME},
      {"rstrictatime", MOUNT_ATTR_STRICTATIME, MOUNT_ATTR__ATIME},
      {"rrelatime", MOUNT_ATTR_RELATIME, MOUNT_ATTR__ATIME},
      {"ratime", MOUNT_ATTR_RELATIME, MOUNT_ATTR__ATIME},
      {"rnorelatime", MOUNT_ATTR_RELATIME, MOUNT_ATTR__ATIME},
      {"rnostrictatime", MOUNT_ATTR_RELATIME, MOUNT_ATTR__ATIME},
  };
  for (auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto f = parse({c.name});
      BOOST_TEST(f.recursive_attrs);
      BOOST_TEST(f.attr_set == c.set);
      BOOST_TEST(f.attr_clr == c.clr);
      BOOST_TEST(f.flags == 0u);
      BOOST_TEST(f.data.empty());
    }
  }
  auto f = parse({"rro", "rnosuid", "rnoexec", "rnoatime", "rrelatime"});
  BOOST_TEST(f.attr_set == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_RELATIME));
  BOOST_TEST(f.attr_clr == uint64_t(MOUNT_ATTR__ATIME));
  f = parse({"rro", "rrw"});
  BOOST_TEST(f.attr_set == 0u);
  BOOST_TEST(f.attr_clr == uint64_t(MOUNT_ATTR_RDONLY));
}

BOOST_AUTO_TEST_CASE(idmap_and_tmpcopyup) {
  auto f = parse({"idmap"});
  BOOST_TEST(f.idmap);
  BOOST_TEST(!f.ridmap);
  f = parse({"rbind", "ridmap"});
  BOOST_TEST(f.ridmap);
  BOOST_TEST(f.data.empty());
  f = parse({"tmpcopyup"});
  BOOST_TEST(f.tmpcopyup);
  BOOST_TEST(f.data.empty());
}

BOOST_AUTO_TEST_CASE(unknown_options_are_data) {
  auto f = parse({"nosuid", "mode=755", "noexec", "size=65536k", "nr_inodes=1k", "newinstance"});
  BOOST_TEST(f.flags == (MS_NOSUID | MS_NOEXEC));
  BOOST_TEST(f.data == "mode=755,size=65536k,nr_inodes=1k,newinstance");
  f = parse({"lowerdir=/a:/b", "upperdir=/u", "workdir=/w"});
  BOOST_TEST(f.data == "lowerdir=/a:/b,upperdir=/u,workdir=/w");
}

BOOST_AUTO_TEST_CASE(docker_defaults) {
  // What Docker / runc spec put in config.json.
  auto proc = parse({"nosuid", "noexec", "nodev"});
  BOOST_TEST(proc.flags == (MS_NOSUID | MS_NOEXEC | MS_NODEV));
  auto dev = parse({"nosuid", "strictatime", "mode=755", "size=65536k"});
  BOOST_TEST(dev.flags == (MS_NOSUID | MS_STRICTATIME));
  BOOST_TEST(dev.data == "mode=755,size=65536k");
  auto pts = parse({"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"});
  BOOST_TEST(pts.data == "newinstance,ptmxmode=0666,mode=0620,gid=5");
  auto cg = parse({"ro", "nosuid", "noexec", "nodev", "relatime"});
  BOOST_TEST(cg.flags == (MS_RDONLY | MS_NOSUID | MS_NOEXEC | MS_NODEV | MS_RELATIME));
  auto vol = parse({"rbind", "rprivate", "ro"});
  BOOST_TEST(vol.flags == (MS_BIND | MS_REC | MS_RDONLY));
  BOOST_TEST(vol.propagation == (MS_PRIVATE | MS_REC));
}
