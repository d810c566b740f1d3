# cmake -DIMAGE=<elf> -DQEMU=<qemu-system-arm> -DMACHINE=<board> -DEXPECT=<regex> -P expect_fault.cmake
# Boots a self-test image that faults: passes only if QEMU exits non-zero AND
# the console shows the expected fault report.
execute_process(
  COMMAND ${QEMU} -M ${MACHINE} -nographic -semihosting-config enable=on,target=native -kernel ${IMAGE}
  INPUT_FILE /dev/null
  OUTPUT_VARIABLE out ERROR_VARIABLE out
  RESULT_VARIABLE rc
  TIMEOUT 30)
message("${out}")
if(rc EQUAL 0)
  message(FATAL_ERROR "the faulting image exited with 0: a fault would pass unnoticed")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "no fault report matching '${EXPECT}' (exit code ${rc})")
endif()
message("fault reported, exit code ${rc}")
