# Warnings for the project's own code (never for libtorch's headers), as errors
# unless KERNODECK_WERROR is OFF. Shared by the whole project and the probe's
# own build (check/probe), so both judge the code alike.
include_guard(GLOBAL)
option(KERNODECK_WERROR "Treat warnings in the project's own code as errors" ON)
add_library(kernodeck_warnings INTERFACE)
target_compile_options(kernodeck_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       $<$<BOOL:${KERNODECK_WERROR}>:-Werror>)
