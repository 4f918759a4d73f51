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
void register_cpu_conv_kernels();
void register_cpu_pool_kernels();
void register_cpu_batchnorm_kernels();
void register_cpu_pad_kernels();
void register_cpu_resample_kernels();
void register_cpu_optim_kernels();
void register_cpu_rnn_kernels();
void register_cpu_attention_kernels();
void register_cpu_flex_attention_kernels();

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
  register_cpu_conv_kernels();
  register_cpu_pool_kernels();
  register_cpu_batchnorm_kernels();
  register_cpu_pad_kernels();
  register_cpu_resample_kernels();
  register_cpu_optim_kernels();
  register_cpu_rnn_kernels();
  register_cpu_attention_kernels();
  register_cpu_flex_attention_kernels();
}

}  // namespace ember
