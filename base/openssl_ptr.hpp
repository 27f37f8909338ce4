// Owning pointers to OpenSSL objects: sh::ossl::Ptr<EVP_PKEY, EVP_PKEY_free>. One deleter
// template instead of a struct per type.
#pragma once
#include <memory>

namespace sh::ossl {

template <auto Free>
struct Deleter {
  template <class T>
  void operator()(T* p) const {
    Free(p);
  }
};

template <class T, auto Free>
using Ptr = std::unique_ptr<T, Deleter<Free>>;

}  // namespace sh::ossl
