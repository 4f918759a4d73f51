# Third-party libraries, all from Debian 12 packages (tools/install-deps.sh installs them).
# They are linked privately into libember.so through the interface target ember_deps, so
# programs that use Ember see only Ember's own headers.
#   OpenBLAS  (libopenblas-dev)  sgemm/dgemm for mm, bmm, matmul; its bundled LAPACK for linalg
#   oneDNN    (libdnnl-dev)      bf16 GEMM, fp32 GEMM where faster; conv and average pooling on the CPU
#   fmt       (libfmt-dev)       error messages and formatting
#   OpenMP    (libgomp, gcc)     parallel_for
#   zlib      (zlib1g-dev)       gzip-compressed data sets (Fashion-MNIST IDX files)
#   SLEEF     (libsleef-dev)     vectorised exp/log/erf/tanh/... for the float32 CPU kernels
#   Gloo      (libgloo-dev)      collectives over TCP for ember::distributed (its own library,
#                                libember_distributed.so; built only where Gloo is found)
#   Eigen     (libeigen3-dev)    header-only dgemm, compiled for the CPU Ember runs on: float64 GEMM
#                                when OpenBLAS falls back to an old core (kernels/cpu/blas_core.cpp)
find_package(fmt REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(ZLIB REQUIRED)
find_package(dnnl REQUIRED)
find_path(OPENBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas-pthread openblas
  PATHS /usr/include/x86_64-linux-gnu /usr/include/aarch64-linux-gnu /usr/include REQUIRED)
find_library(OPENBLAS_LIBRARY NAMES openblas REQUIRED)

find_path(EIGEN3_INCLUDE_DIR Eigen/Core PATH_SUFFIXES eigen3 REQUIRED)

find_path(SLEEF_INCLUDE_DIR sleef.h PATH_SUFFIXES x86_64-linux-gnu aarch64-linux-gnu)
find_library(SLEEF_LIBRARY NAMES sleef)

add_library(ember_deps INTERFACE)
if(SLEEF_INCLUDE_DIR AND SLEEF_LIBRARY)
  target_include_directories(ember_deps SYSTEM INTERFACE ${SLEEF_INCLUDE_DIR})
  target_link_libraries(ember_deps INTERFACE ${SLEEF_LIBRARY})
  target_compile_definitions(ember_deps INTERFACE EMBER_HAVE_SLEEF=1)
else()
  message(STATUS "Ember: SLEEF not found; transcendental CPU kernels stay scalar")
endif()
target_include_directories(ember_deps SYSTEM INTERFACE ${OPENBLAS_INCLUDE_DIR})
target_link_libraries(ember_deps INTERFACE fmt::fmt OpenMP::OpenMP_CXX ZLIB::ZLIB
  DNNL::dnnl ${OPENBLAS_LIBRARY})

find_path(GLOO_INCLUDE_DIR gloo/context.h)
find_library(GLOO_LIBRARY NAMES gloo)
if(GLOO_INCLUDE_DIR AND GLOO_LIBRARY)
  set(EMBER_WITH_DISTRIBUTED ON)
  message(STATUS "Ember: Gloo ${GLOO_LIBRARY} (ember_distributed)")
else()
  set(EMBER_WITH_DISTRIBUTED OFF)
  message(WARNING "Ember: Gloo not found (libgloo-dev): building without ember_distributed")
endif()
