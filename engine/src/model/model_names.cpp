// Printable names of the model format's enums (see attn/model.h).
#include "attn/model.h"

namespace attn {

const char* model_error_str(ModelError error) {
  switch (error) {
    case ModelError::kNone: return "ok";
    case ModelError::kNullArgument: return "null buffer or output";
    case ModelError::kTooSmall: return "buffer shorter than the model header";
    case ModelError::kBadMagic: return "not a model blob (bad magic)";
    case ModelError::kBadVersion: return "unsupported format version";
    case ModelError::kBadHeaderSize: return "bad header size";
    case ModelError::kMisalignedBuffer: return "buffer address not 4-byte aligned";
    case ModelError::kTruncated: return "truncated: total size exceeds the buffer";
    case ModelError::kBadTotalSize: return "total size smaller than the header";
    case ModelError::kBadCrc: return "CRC-32 mismatch (corrupt data)";
    case ModelError::kBadOp: return "unknown op kind";
    case ModelError::kBadDtype: return "unknown model dtype";
    case ModelError::kBadFlags: return "flags or reserved header bytes not zero";
    case ModelError::kBadName: return "model name not printable ASCII";
    case ModelError::kBadParams: return "hyper-parameters invalid for the op";
    case ModelError::kBadTableOffset: return "tensor table misaligned or out of bounds";
    case ModelError::kBadTensorCount: return "tensor count 0 or too large";
    case ModelError::kBadTensorEntry: return "tensor entry inconsistent (rank, dims, bytes)";
    case ModelError::kUnknownTensor: return "tensor id unknown for this op and dtype";
    case ModelError::kDuplicateTensor: return "tensor id listed twice";
    case ModelError::kBadTensorDtype: return "tensor dtype wrong for its id";
    case ModelError::kBadTensorShape: return "tensor shape disagrees with the hyper-parameters";
    case ModelError::kMisalignedTensor: return "tensor offset not 64-byte aligned";
    case ModelError::kTensorOutOfBounds: return "tensor data out of bounds";
    case ModelError::kTensorOverlap: return "tensors overlap";
    case ModelError::kMissingTensor: return "required tensor missing";
    case ModelError::kBadQuantParams: return "quantization scale or zero point out of range";
    case ModelError::kNonFiniteWeight: return "a float32 weight or bias is NaN or infinite";
  }
  return "unknown model error";
}

const char* model_op_str(ModelOp op) {
  switch (op) {
    case ModelOp::kMha: return "mha";
    case ModelOp::kBahdanau: return "bahdanau";
    case ModelOp::kLuongGeneral: return "luong_general";
    case ModelOp::kMhaDecode: return "mha_decode";
    default: return "none";
  }
}

const char* model_dtype_str(ModelDtype dtype) {
  switch (dtype) {
    case ModelDtype::kF32: return "f32";
    case ModelDtype::kInt8: return "int8";
    default: return "none";
  }
}

const char* tensor_dtype_str(TensorDtype dtype) {
  switch (dtype) {
    case TensorDtype::kF32: return "f32";
    case TensorDtype::kInt8: return "int8";
    case TensorDtype::kInt32: return "int32";
    default: return "none";
  }
}

const char* tensor_id_str(TensorId id) {
  switch (id) {
    case TensorId::kMhaInProjWeight: return "in_proj_weight";
    case TensorId::kMhaInProjBias: return "in_proj_bias";
    case TensorId::kMhaQProjWeight: return "q_proj_weight";
    case TensorId::kMhaKProjWeight: return "k_proj_weight";
    case TensorId::kMhaVProjWeight: return "v_proj_weight";
    case TensorId::kMhaOutProjWeight: return "out_proj.weight";
    case TensorId::kMhaOutProjBias: return "out_proj.bias";
    case TensorId::kMhaInProjWeightScale: return "in_proj_weight_scale";
    case TensorId::kMhaQProjWeightScale: return "q_proj_weight_scale";
    case TensorId::kMhaKProjWeightScale: return "k_proj_weight_scale";
    case TensorId::kMhaVProjWeightScale: return "v_proj_weight_scale";
    case TensorId::kMhaOutProjWeightScale: return "out_proj.weight_scale";
    case TensorId::kMhaQProjBias: return "q_proj_bias";
    case TensorId::kMhaKProjBias: return "k_proj_bias";
    case TensorId::kMhaVProjBias: return "v_proj_bias";
    case TensorId::kBahdanauW1: return "W1";
    case TensorId::kBahdanauB1: return "b1";
    case TensorId::kBahdanauW2: return "W2";
    case TensorId::kBahdanauB2: return "b2";
    case TensorId::kBahdanauV: return "v";
    case TensorId::kBahdanauBv: return "bv";
    case TensorId::kBahdanauW1Scale: return "W1_scale";
    case TensorId::kBahdanauW2Scale: return "W2_scale";
    case TensorId::kBahdanauVScale: return "v_scale";
    case TensorId::kLuongW: return "W";
    case TensorId::kLuongB: return "b";
    case TensorId::kLuongWScale: return "W_scale";
    case TensorId::kActScale: return "act_scale";
    case TensorId::kActZeroPoint: return "act_zero_point";
  }
  return "unknown";
}

}  // namespace attn
