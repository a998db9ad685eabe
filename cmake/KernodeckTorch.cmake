# Finds the libtorch the probe module is built against and describes it as the
# INTERFACE target `kernodeck_libtorch`, with KERNODECK_TORCH_BACKEND set to
# cuda, rocm or none, KERNODECK_TORCH_SOURCE saying where it came from, and
# KERNODECK_TORCH_CPU_LIBRARY / KERNODECK_TORCH_GPU_LIBRARY the paths of
# libtorch_cpu and of libtorch_cuda or libtorch_hip (empty if none; the
# benchmark loads them), and for a folder KERNODECK_TORCH_LIBRARY_DIR, its lib/
# (the installed probe's RUNPATH).
#
# A libtorch *folder* (PyPI's torch package folder, or the unpacked libtorch
# zip: lib/libtorch.so beside include/) is used as it is: its headers, its
# libraries, the C++ ABI its libraries were built with and the C++ standard its
# headers require; never a CUDA toolkit. find_package(Torch) is not called
# for a folder: its CUDA detection needs a CUDA toolkit (nvcc) that runtime
# images do not have, and it links the toolkit's libraries into the probe.
# The folder is, in this order:
#   KERNODECK_TORCH_DIR       the folder itself;
#   KERNODECK_TORCH_PYTHON    a Python interpreter whose `torch` package is used
#                             (torch is located, not imported);
#   an entry of CMAKE_PREFIX_PATH that is such a folder, or its share/cmake
#                             (what torch.utils.cmake_prefix_path prints).
# Without a folder, a distribution's libtorch (Debian's libtorch-dev) is found
# by find_package(Torch).
include_guard(GLOBAL)

set(KERNODECK_TORCH_DIR "" CACHE PATH "A libtorch folder (torch package folder or libtorch zip)")
set(KERNODECK_TORCH_PYTHON "" CACHE FILEPATH "A Python interpreter whose torch package to use")

function(_kd_is_torch_folder dir out)
  if(EXISTS "${dir}/lib/libtorch.so" AND EXISTS "${dir}/include/torch/csrc/api/include")
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

function(_kd_find_torch_folder out)
  set(${out} "" PARENT_SCOPE)
  if(KERNODECK_TORCH_DIR)
    _kd_is_torch_folder("${KERNODECK_TORCH_DIR}" ok)
    if(NOT ok)
      message(FATAL_ERROR "KERNODECK_TORCH_DIR=${KERNODECK_TORCH_DIR} is not a libtorch folder "
                          "(expected lib/libtorch.so and include/torch/csrc/api/include there)")
    endif()
    get_filename_component(dir "${KERNODECK_TORCH_DIR}" ABSOLUTE)
    set(${out} "${dir}" PARENT_SCOPE)
    return()
  endif()
  if(KERNODECK_TORCH_PYTHON)
    execute_process(
      COMMAND "${KERNODECK_TORCH_PYTHON}" -c
              "import importlib.util as u; s = u.find_spec('torch'); print(list(s.submodule_search_locations)[0] if s else '')"
      OUTPUT_VARIABLE dir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status ERROR_VARIABLE err)
    if(NOT status EQUAL 0 OR dir STREQUAL "")
      message(FATAL_ERROR "KERNODECK_TORCH_PYTHON=${KERNODECK_TORCH_PYTHON} has no torch package "
                          "(${status}: ${err})")
    endif()
    _kd_is_torch_folder("${dir}" ok)
    if(NOT ok)
      message(FATAL_ERROR "the torch package of ${KERNODECK_TORCH_PYTHON} (${dir}) carries no "
                          "libtorch (lib/libtorch.so and its headers)")
    endif()
    set(${out} "${dir}" PARENT_SCOPE)
    return()
  endif()
  foreach(prefix IN LISTS CMAKE_PREFIX_PATH)
    foreach(candidate "${prefix}" "${prefix}/../..")
      get_filename_component(candidate "${candidate}" ABSOLUTE)
      _kd_is_torch_folder("${candidate}" ok)
      if(ok)
        set(${out} "${candidate}" PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endforeach()
endfunction()

# The C++ ABI is read from the library itself: symbols of the new ABI carry the
# [abi:cxx11] tag (B5cxx11 in their mangled names). Wheels before 2.7 used the
# old ABI, libtorch zips came in both, newer builds only in the new one.
function(_kd_torch_cxx11_abi library out)
  file(STRINGS "${library}" tagged REGEX "B5cxx11" LIMIT_COUNT 1)
  if(tagged)
    set(${out} 1 PARENT_SCOPE)
  else()
    set(${out} 0 PARENT_SCOPE)
  endif()
endfunction()

function(_kd_torch_from_folder dir)
  add_library(kernodeck_libtorch INTERFACE)
  target_include_directories(kernodeck_libtorch SYSTEM INTERFACE
    "${dir}/include" "${dir}/include/torch/csrc/api/include")
  set(libraries "")
  foreach(name torch torch_cpu c10)
    if(NOT EXISTS "${dir}/lib/lib${name}.so")
      message(FATAL_ERROR "libtorch folder ${dir} lacks lib/lib${name}.so")
    endif()
    list(APPEND libraries "${dir}/lib/lib${name}.so")
  endforeach()
  set(backend none)
  if(EXISTS "${dir}/lib/libtorch_hip.so")
    set(backend rocm)
    list(APPEND libraries "${dir}/lib/libtorch_hip.so" "${dir}/lib/libc10_hip.so")
  elseif(EXISTS "${dir}/lib/libtorch_cuda.so")
    set(backend cuda)
    list(APPEND libraries "${dir}/lib/libtorch_cuda.so" "${dir}/lib/libc10_cuda.so")
  endif()
  target_link_libraries(kernodeck_libtorch INTERFACE ${libraries})
  set(KERNODECK_TORCH_CPU_LIBRARY "${dir}/lib/libtorch_cpu.so" PARENT_SCOPE)
  set(KERNODECK_TORCH_LIBRARY_DIR "${dir}/lib" PARENT_SCOPE)
  if(backend STREQUAL "cuda")
    set(KERNODECK_TORCH_GPU_LIBRARY "${dir}/lib/libtorch_cuda.so" PARENT_SCOPE)
  elseif(backend STREQUAL "rocm")
    set(KERNODECK_TORCH_GPU_LIBRARY "${dir}/lib/libtorch_hip.so" PARENT_SCOPE)
  endif()
  # The C++ standard its headers require, as ATen.h states it (C++20 from 2.10).
  file(STRINGS "${dir}/include/ATen/ATen.h" required REGEX "C[+][+][0-9]+ or later" LIMIT_COUNT 1)
  set(standard 17)
  if(required MATCHES "C[+][+]([0-9]+) or later" AND CMAKE_MATCH_1 GREATER 17)
    set(standard ${CMAKE_MATCH_1})
  endif()
  target_compile_features(kernodeck_libtorch INTERFACE cxx_std_${standard})
  _kd_torch_cxx11_abi("${dir}/lib/libc10.so" abi)
  target_compile_definitions(kernodeck_libtorch INTERFACE _GLIBCXX_USE_CXX11_ABI=${abi})
  set(KERNODECK_TORCH_BACKEND ${backend} PARENT_SCOPE)
endfunction()

set(KERNODECK_TORCH_CPU_LIBRARY "")
set(KERNODECK_TORCH_GPU_LIBRARY "")
set(KERNODECK_TORCH_LIBRARY_DIR "")
_kd_find_torch_folder(_kd_torch_folder)
if(_kd_torch_folder)
  _kd_torch_from_folder("${_kd_torch_folder}")
  set(KERNODECK_TORCH_SOURCE "folder ${_kd_torch_folder}")
else()
  find_package(Torch REQUIRED)
  add_library(kernodeck_libtorch INTERFACE)
  target_link_libraries(kernodeck_libtorch INTERFACE ${TORCH_LIBRARIES})
  set(KERNODECK_TORCH_BACKEND none)
  if(TARGET torch_hip OR TARGET c10_hip OR C10_HIP_LIBRARY)
    set(KERNODECK_TORCH_BACKEND rocm)
  elseif(TARGET torch_cuda OR TARGET c10_cuda OR C10_CUDA_LIBRARY)
    set(KERNODECK_TORCH_BACKEND cuda)
  endif()
  # The libraries' paths: imported targets where the package defines them,
  # else the entries of TORCH_LIBRARIES.
  foreach(lib torch_cpu torch_cuda torch_hip)
    set(path "")
    if(TARGET ${lib})
      get_target_property(path ${lib} IMPORTED_LOCATION)
      if(NOT path)
        get_target_property(path ${lib} IMPORTED_LOCATION_RELEASE)
      endif()
    endif()
    if(NOT path)
      foreach(entry IN LISTS TORCH_LIBRARIES)
        if(entry MATCHES "lib${lib}[.]so" AND EXISTS "${entry}")
          set(path "${entry}")
        endif()
      endforeach()
    endif()
    if(NOT path)
      find_library(_kd_${lib} ${lib} HINTS "${TORCH_INSTALL_PREFIX}/lib" NO_CACHE)
      if(_kd_${lib})
        set(path "${_kd_${lib}}")
      endif()
    endif()
    if(path AND lib STREQUAL "torch_cpu")
      set(KERNODECK_TORCH_CPU_LIBRARY "${path}")
    elseif(path)
      set(KERNODECK_TORCH_GPU_LIBRARY "${path}")
    endif()
  endforeach()
  set(KERNODECK_TORCH_SOURCE "find_package(Torch) ${Torch_DIR}")
endif()
message(STATUS "kernodeck: libtorch from ${KERNODECK_TORCH_SOURCE}, backend ${KERNODECK_TORCH_BACKEND}")
