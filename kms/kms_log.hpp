// One log line per event, "2025-01-01T00:00:00.123Z sharness-kms[<name>] <who>: <msg>", written
// with one write(2) on an O_APPEND fd opened before the sandbox (no file is opened after).
// Never a key: lines name vaults, hosts, operations and outcomes only.
#pragma once
#include <string_view>

namespace sh::kms {

void log_line(int fd, std::string_view name, std::string_view who, std::string_view msg);

}  // namespace sh::kms
