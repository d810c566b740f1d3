// The name of the Highway library inside the Highway backends' namespace
// attn::hwy (kernels_f32_hwy.cpp, attend_f32_hwy.cpp).
//
// Inside namespace attn, `hwy` names the backend's namespace, so those files
// spell the Highway library ::hwy; the alias attn::hwy::hwy lets Highway's
// macros (HWY_EXPORT, HWY_DYNAMIC_DISPATCH, ...), which write hwy::, name the
// library again. Included on every target's pass of those files, declared
// once.
#pragma once

#include "hwy/base.h"

namespace attn {
namespace hwy {
namespace hwy = ::hwy;
}  // namespace hwy
}  // namespace attn
