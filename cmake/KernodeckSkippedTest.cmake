# kernodeck_skipped_test(NAME REASON): a test that only says why it cannot run in this build.
# It prints "skipped: REASON" and exits 77; give it SKIP_RETURN_CODE 77 with the test's other
# properties, so that CTest, and the JUnit report after it, show a skip with its reason. The
# reason goes to the shell as an argument: it needs no quoting.
function(kernodeck_skipped_test name reason)
  add_test(NAME ${name} COMMAND sh -c "printf 'skipped: %s\\n' \"$1\"; exit 77" sh "${reason}")
endfunction()
