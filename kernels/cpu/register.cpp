// The CPU backend's one registration function, called from src/dispatch/dispatch.cpp.
namespace ember {

void register_cpu_unary_kernels();
void register_cpu_binary_kernels();
void register_cpu_cast_kernels();
void register_cpu_reduce_kernels();
void register_cpu_blas_kernels();
void register_cpu_norm_kernels();
void register_cpu_embedding_kernels();
void register_cpu_index_kernels();
void register_cpu_lapack_kernels();

void register_cpu_kernels() {
  register_cpu_unary_kernels();
  register_cpu_binary_kernels();
  register_cpu_cast_kernels();
  register_cpu_reduce_kernels();
  register_cpu_blas_kernels();
  register_cpu_norm_kernels();
  register_cpu_embedding_kernels();
  register_cpu_index_kernels();
  register_cpu_lapack_kernels();
}

}  // namespace ember
