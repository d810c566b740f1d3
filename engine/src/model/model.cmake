# Model blobs: the zero-copy loader and the runners of loaded models (float
# and int8).
target_sources(attn PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/model_load.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_crc.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_names.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_decode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_s8.cpp)
