// Umbrella header: every public op of the engine, float and int8, and the
// model blob loader and runners; plus the build's configuration (attn/config.h:
// backend, kernel set, query tiles).
#pragma once

#include "attn/config.h"
#include "attn/context_args.h"
#include "attn/mask.h"
#include "attn/parallel.h"
#include "attn/scratch.h"
#include "attn/status.h"

// float32 ops
#include "attn/bahdanau.h"
#include "attn/general_attention.h"
#include "attn/kv_cache.h"
#include "attn/luong.h"
#include "attn/mha.h"
#include "attn/mha_decode.h"
#include "attn/sdpa.h"

// int8 ops (TensorFlow Lite semantics)
#include "attn/bahdanau_s8.h"
#include "attn/luong_s8.h"
#include "attn/mha_decode_s8.h"
#include "attn/mha_s8.h"
#include "attn/sdpa_s8.h"
#include "attn/softmax_s8.h"

// Model blobs: loader (model.h) and runners
#include "attn/model.h"
#include "attn/model_decode.h"
#include "attn/model_s8.h"
