// hello's attempts through the egress door (docs/egress.md), made when the policy has one: the
// workload asks the door (busybox wget, through the proxy variables the policy sets) for a host no
// rule lists and for the cloud metadata address. Neither needs the network: the door refuses both
// before it resolves or connects anything. Going around the door is the "connect to the outside"
// row: the container's network namespace has only lo.
#include "cmd/sharness-runtime/hello.hpp"

namespace sh::lifecycle::hello {

// A plain HTTP request to the door, written by hand (busybox's wget crashes with a proxy set) with
// one fork only (harsh allows four processes): the answer's status line is the detail, and
// anything but a 2xx counts as refused.
std::string egress_script(const Facts& f) {
  if (!f.egress) return "";
  return "d() { printf 'GET http://%s%s HTTP/1.1\\r\\nHost: %s\\r\\nConnection: close\\r\\n\\r\\n' \"$2\" \"$3\" \"$2\" "
         ">/tmp/req 2>/dev/null; o=$(nc -w 10 127.0.0.1 3128 </tmp/req 2>&1); o=${o%%\r*}; "
         "case $o in \"HTTP/1.1 2\"*) r=0 ;; *) r=1 ;; esac; echo \"@@$1|$r|$o\"; }\n"
         "d egress-unlisted unlisted.example.com /\n"
         "d egress-metadata 169.254.169.254 /latest/meta-data/\n";
}

namespace {

bool has(const std::string& s, std::string_view needle) { return s.find(needle) != std::string::npos; }

Row egress_row(const Facts& f, std::string attempt, const Record* r, const std::string& why) {
  Row row;
  row.attempt = std::move(attempt);
  if (!r) {
    row.detail = "the attempt did not report";
    return row;
  }
  row.detail = r->detail;
  for (auto& c : row.detail)
    if (c == '\n') c = ' ';
  if (r->value == "0") {
    row.outcome = Outcome::allowed;
    if (row.detail.empty()) row.detail = "the door let it through";
    return row;
  }
  row.outcome = Outcome::denied;
  if (has(row.detail, "403"))
    row.stopped_by = "egress door (own uid, outside): " + why + ", 403";
  else if (has(row.detail, "Operation not permitted"))
    row.stopped_by = f.seccomp_denies("socket") ? "seccomp: socket() not allowed" : "refused (EPERM)";
  else
    row.stopped_by = "refused (mechanism not identified from the error)";
  return row;
}

}  // namespace

void add_egress_rows(const Facts& f, const std::vector<Record>& recs, std::vector<Row>& rows) {
  if (!f.egress) return;
  rows.push_back(egress_row(f, "reach an unlisted host via the door",
                            find_record(recs, "egress-unlisted"), "host in no rule"));
  rows.push_back(egress_row(f, "reach 169.254.169.254 via the door",
                            find_record(recs, "egress-metadata"), "address in no rule"));
}

}  // namespace sh::lifecycle::hello
