# Included by the top-level CMakeLists.txt when SOFTGRAD_WITH_CUDA is AUTO or ON: looks for nvcc,
# enables CUDA and sets SOFTGRAD_HAS_CUDA to 1 when found. AUTO builds the module only on a
# machine with an NVIDIA GPU (the 11 CUDA units are most of a CPU machine's build otherwise); ON
# without nvcc is an error.
if(SOFTGRAD_WITH_CUDA STREQUAL "AUTO")
  find_program(SOFTGRAD_NVIDIA_SMI nvidia-smi)
  set(gpu_found FALSE)
  if(SOFTGRAD_NVIDIA_SMI)
    execute_process(COMMAND ${SOFTGRAD_NVIDIA_SMI} -L RESULT_VARIABLE smi_result
                    OUTPUT_VARIABLE smi_output ERROR_QUIET)
    if(smi_result EQUAL 0 AND smi_output MATCHES "GPU")
      set(gpu_found TRUE)
    endif()
  endif()
  if(NOT gpu_found)
    message(STATUS "softgrad: no NVIDIA GPU found, building the CPU backend only "
                   "(-DSOFTGRAD_WITH_CUDA=ON builds the CUDA module anyway)")
    return()
  endif()
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  if(SOFTGRAD_WITH_CUDA STREQUAL "AUTO")
    message(STATUS "softgrad: no nvcc found, building the CPU backend only")
    return()
  endif()
  message(FATAL_ERROR "SOFTGRAD_WITH_CUDA=${SOFTGRAD_WITH_CUDA} but no CUDA compiler (nvcc) was "
                      "found: put nvcc on PATH, set CMAKE_CUDA_COMPILER, or use -DSOFTGRAD_WITH_CUDA=OFF")
endif()
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 90)  # H200; never "native", which fails without a GPU
endif()
enable_language(CUDA)
# CMake 3.25 (Debian's) knows no C++20 dialect flag for nvcc; the device code is C++20 like the
# host code (nvcc 12+ supports it).
if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
endif()
set(CMAKE_CUDA_STANDARD 20)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(CMAKE_CUDA_EXTENSIONS OFF)
find_package(CUDAToolkit REQUIRED)
set(SOFTGRAD_HAS_CUDA 1)
message(STATUS "softgrad: CUDA backend with ${CMAKE_CUDA_COMPILER} "
               "(CUDA ${CUDAToolkit_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
