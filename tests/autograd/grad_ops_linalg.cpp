// Gradient test entries of the linalg ops (see grad_op_info.h).
#include "tests/autograd/grad_op_info.h"

using namespace ember;

void add_linalg_grad_ops(std::vector<GradOpInfo>& ops) { (void)ops; }
