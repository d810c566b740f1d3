# Model blobs: the zero-copy loader and the runners of loaded models.
target_sources(attn PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/model_load.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_run.cpp)
# int8 models through the int8 ops, when this build has them.
if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/../int8/mha_s8_prepare.cpp)
  target_sources(attn PRIVATE ${CMAKE_CURRENT_LIST_DIR}/model_s8.cpp)
endif()
