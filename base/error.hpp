// One error type for the whole runtime: an errno (0 when not a system error) and a
// message that grows a chain of context as it travels up ("create: mount proc: EBUSY").
#pragma once
#include <cerrno>
#include <expected>
#include <string>
#include <utility>

namespace sh {

struct Error {
  int err = 0;          // errno, or 0 for a logical error
  std::string msg;      // what failed and on what

  // Full text: "msg: ENAME (description)" for system errors, "msg" otherwise.
  std::string what() const;
  // Prepend context: "ctx: <old message>".
  Error&& context(std::string_view ctx) &&;
};

template <class T = void>
using Result = std::expected<T, Error>;

// A system error from the current errno, e.g. sys_error("mount /proc on rootfs/proc").
inline std::unexpected<Error> sys_error(std::string what, int e = errno) {
  return std::unexpected(Error{e, std::move(what)});
}
// A logical error (bad input, wrong state), no errno.
inline std::unexpected<Error> fail(std::string what) {
  return std::unexpected(Error{0, std::move(what)});
}
inline std::unexpected<Error> fail(Error e) { return std::unexpected(std::move(e)); }

namespace detail {
template <class T>
T take(std::expected<T, Error>&& r) { return std::move(*r); }
inline void take(std::expected<void, Error>&&) {}
}  // namespace detail

}  // namespace sh

// Propagate an error: `auto v = TRY(f());`  /  `TRYV(g());` for Result<void>.
#define TRY(...)                                                   \
  ({                                                               \
    auto _r = (__VA_ARGS__);                                       \
    if (!_r) return std::unexpected(std::move(_r.error()));        \
    ::sh::detail::take(std::move(_r));                             \
  })
#define TRYV(...)                                                  \
  do {                                                             \
    auto _r = (__VA_ARGS__);                                       \
    if (!_r) return std::unexpected(std::move(_r.error()));        \
  } while (0)
// Same, adding context to the error on the way up.
#define TRYC(ctx, ...)                                                         \
  ({                                                                           \
    auto _r = (__VA_ARGS__);                                                   \
    if (!_r) return std::unexpected(std::move(_r.error()).context(ctx));       \
    ::sh::detail::take(std::move(_r));                                         \
  })
#define TRYVC(ctx, ...)                                                        \
  do {                                                                         \
    auto _r = (__VA_ARGS__);                                                   \
    if (!_r) return std::unexpected(std::move(_r.error()).context(ctx));       \
  } while (0)
