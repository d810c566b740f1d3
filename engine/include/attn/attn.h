// Umbrella header: every public op of the engine.
#pragma once

#include "attn/bahdanau.h"
#include "attn/general_attention.h"
#include "attn/luong.h"
#include "attn/mask.h"
#include "attn/kv_cache.h"
#include "attn/mha.h"
#include "attn/mha_decode.h"
#include "attn/scratch.h"
#include "attn/sdpa.h"
#include "attn/status.h"
