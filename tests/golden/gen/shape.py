"""shape.golden: shape, view and indexing ops."""

import math

import torch

from .common import Family, Rng

# shape.golden
#   cat/stack(args, dim=i0); repeat/tile(a0, l0); flip(a0, l0); roll(a0, shifts=l0, dims=l1)
#   (no l1: flattened roll); tril/triu(a0, i0); constant_pad_nd(a0, pad=l0, value=s0);
#   diagonal(a0, offset=i0, dim1=i1, dim2=i2); unfold(a0, dimension=i0, size=i1, step=i2);
#   movedim(a0, l0, l1) (int form: i0, i1).
#   index(a0, {components}): one `str` per component, in order:
#     N (an integer), a:b:c (a slice; empty parts are None, step > 0), None, ..., True, False,
#     @k (tensor arg k: an int64 index or a bool mask). tests/support/golden.h: golden_index().
#   index_select/gather(a0, i0, a1); scatter(a0, i0, a1, a2 | s0); scatter_add/index_add(a0, i0,
#   a1, a2[, alpha=s0]); masked_fill(a0, a1, s0 | a2); masked_select(a0, a1); nonzero(a0);
#   take(a0, a1).


def gen_shape():
    fam = Family("shape", ["Shape, view and indexing ops."])
    r = Rng("shape")
    u = lambda *s, dt=torch.float32: r.uniform(list(s), -5, 5, dt)
    ar = lambda *s, dt=torch.float32: torch.arange(math.prod(s), dtype=dt).reshape(s)

    # cat / stack
    fam.case("cat/dim0_float32", "torch.cat([a0, a1, a2], dim=i0)", [u(2, 3), u(1, 3), u(3, 3)],
             iargs=[0])
    fam.case("cat/dim1_int64", "torch.cat([a0, a1], dim=i0)", [ar(2, 3, dt=torch.int64),
                                                              ar(2, 2, dt=torch.int64)], iargs=[1])
    fam.case("cat/dimneg1_float64", "torch.cat([a0, a1], dim=i0)",
             [u(2, 2, 3, dt=torch.float64), u(2, 2, 1, dt=torch.float64)], iargs=[-1])
    fam.case("cat/promote_int32_float32", "torch.cat([a0, a1], dim=i0)",
             [ar(2, 3, dt=torch.int32), u(1, 3)], iargs=[0])
    fam.case("cat/bool_uint8", "torch.cat([a0, a1], dim=i0)",
             [r.bools([2, 2]), r.ints([2, 2], 0, 255, torch.uint8)], iargs=[0])
    fam.case("cat/legacy_empty_1d", "torch.cat([a0, a1], dim=i0)", [torch.empty(0), u(2, 3)],
             iargs=[0], note="a 1-D empty tensor is skipped whatever its dim count")
    fam.case("cat/zero_size", "torch.cat([a0, a1], dim=i0)", [torch.empty(2, 0), u(2, 3)],
             iargs=[1])
    fam.case("cat/transposed_float32", "torch.cat([a0.mT, a1], dim=i0)", [u(3, 2), u(1, 3)],
             iargs=[0], flags=["transposed"])
    fam.case("cat/single_float32", "torch.cat([a0], dim=i0)", [u(2, 3)], iargs=[0])
    fam.case("stack/dim0_float32", "torch.stack([a0, a1, a2], dim=i0)", [u(2, 3), u(2, 3), u(2, 3)],
             iargs=[0])
    fam.case("stack/dim1_int64", "torch.stack([a0, a1], dim=i0)",
             [ar(2, 3, dt=torch.int64), ar(2, 3, dt=torch.int64) + 10], iargs=[1])
    fam.case("stack/dimneg1_float64", "torch.stack([a0, a1], dim=i0)",
             [u(2, 3, dt=torch.float64), u(2, 3, dt=torch.float64)], iargs=[-1])
    fam.case("stack/promote_int64_float16", "torch.stack([a0, a1], dim=i0)",
             [ar(3, dt=torch.int64), u(3, dt=torch.float16)], iargs=[0])
    fam.case("stack/dim0_tensors", "torch.stack([a0, a1], dim=i0)", [torch.tensor(1.5),
                                                                    torch.tensor(-2.0)], iargs=[0])

    # repeat / tile
    fam.case("repeat/2d", "a0.repeat(l0)", [ar(2, 3)], ilists=[[2, 3]])
    fam.case("repeat/more_dims", "a0.repeat(l0)", [ar(2, 3, dt=torch.int64)], ilists=[[2, 1, 2]])
    fam.case("repeat/zero", "a0.repeat(l0)", [ar(2, 3)], ilists=[[0, 2]])
    fam.case("repeat/transposed", "a0.mT.repeat(l0)", [ar(3, 2)], ilists=[[2, 1]],
             flags=["transposed"])
    fam.case("tile/fewer_dims", "torch.tile(a0, l0)", [ar(2, 3)], ilists=[[2]])
    fam.case("tile/same_dims", "torch.tile(a0, l0)", [ar(2, 3, dt=torch.float64)], ilists=[[2, 2]])
    fam.case("tile/more_dims", "torch.tile(a0, l0)", [ar(3) > 0], ilists=[[2, 1, 2]])

    # flip / roll
    fam.case("flip/dim0", "torch.flip(a0, l0)", [ar(2, 3, 4)], ilists=[[0]])
    fam.case("flip/dims02", "torch.flip(a0, l0)", [ar(2, 3, 4, dt=torch.int64)], ilists=[[0, 2]])
    fam.case("flip/dimneg1", "torch.flip(a0, l0)", [ar(2, 3, 4, dt=torch.float64)], ilists=[[-1]])
    fam.case("flip/transposed", "torch.flip(a0.mT, l0)", [ar(3, 4)], ilists=[[1]],
             flags=["transposed"])
    fam.case("roll/flat", "torch.roll(a0, l0)", [ar(3, 4)], ilists=[[5]])
    fam.case("roll/dim1", "torch.roll(a0, l0, l1)", [ar(3, 4)], ilists=[[1], [1]])
    fam.case("roll/negative_multi", "torch.roll(a0, l0, l1)", [ar(2, 3, 4, dt=torch.int64)],
             ilists=[[-1, 6], [0, 2]])
    fam.case("roll/transposed", "torch.roll(a0.mT, l0, l1)", [ar(3, 4)], ilists=[[1], [0]],
             flags=["transposed"])

    # tril / triu
    for op in ("tril", "triu"):
        for d in (0, 1, -1, 5):
            fam.case(f"{op}/diag{d}", f"torch.{op}(a0, i0)", [ar(3, 4)], iargs=[d])
        fam.case(f"{op}/batched_int64", f"torch.{op}(a0, i0)", [ar(2, 3, 3, dt=torch.int64)],
                 iargs=[0])
        fam.case(f"{op}/transposed", f"torch.{op}(a0.mT, i0)", [ar(4, 3)], iargs=[0],
                 flags=["transposed"])

    # constant_pad_nd(a0, pad=l0, value=s0)
    fam.case("constant_pad_nd/last_dim", "torch.constant_pad_nd(a0, l0, s0)", [ar(2, 3)],
             ilists=[[1, 2]], sargs=[0.0])
    fam.case("constant_pad_nd/two_dims", "torch.constant_pad_nd(a0, l0, s0)", [ar(2, 3)],
             ilists=[[1, 0, 2, 1]], sargs=[-1.5])
    fam.case("constant_pad_nd/negative", "torch.constant_pad_nd(a0, l0, s0)", [ar(3, 4)],
             ilists=[[-1, 2, 0, -1]], sargs=[9.0])
    fam.case("constant_pad_nd/int64", "torch.constant_pad_nd(a0, l0, s0)",
             [ar(2, 2, dt=torch.int64)],
             ilists=[[1, 1]], sargs=[7])

    # diagonal / unfold / movedim
    fam.case("diagonal/main", "torch.diagonal(a0, i0, i1, i2)", [ar(3, 4)], iargs=[0, 0, 1])
    fam.case("diagonal/offset1", "torch.diagonal(a0, i0, i1, i2)", [ar(3, 4)], iargs=[1, 0, 1])
    fam.case("diagonal/offset_neg1", "torch.diagonal(a0, i0, i1, i2)", [ar(3, 4)], iargs=[-1, 0, 1])
    fam.case("diagonal/offset_out", "torch.diagonal(a0, i0, i1, i2)", [ar(3, 4)], iargs=[5, 0, 1])
    fam.case("diagonal/dims_12", "torch.diagonal(a0, i0, i1, i2)", [ar(2, 3, 4)], iargs=[0, 1, 2])
    fam.case("diagonal/dims_neg1_0", "torch.diagonal(a0, i0, i1, i2)", [ar(3, 2, 4)],
             iargs=[1, -1, 0])
    fam.case("unfold/dim1", "a0.unfold(i0, i1, i2)", [ar(2, 7)], iargs=[1, 3, 2])
    fam.case("unfold/dim0_step1", "a0.unfold(i0, i1, i2)", [ar(5, 2)], iargs=[0, 2, 1])
    fam.case("unfold/1d", "a0.unfold(i0, i1, i2)", [ar(8, dt=torch.int64)], iargs=[0, 4, 4])
    fam.case("movedim/int", "torch.movedim(a0, i0, i1)", [ar(2, 3, 4)], iargs=[0, 2])
    fam.case("movedim/list", "torch.movedim(a0, l0, l1)", [ar(2, 3, 4, 5)], ilists=[[0, 1], [3, 0]])
    fam.case("movedim/negative", "torch.movedim(a0, l0, l1)", [ar(2, 3, 4)], ilists=[[-1], [0]])

    # index
    def idx_case(name, comps, tensors, x):
        def py(c):
            if c.startswith("@"):
                return f"a{c[1:]}"
            if ":" in c:
                return c
            return c
        call = f"a0[{', '.join(py(c) for c in comps)}]"
        fam.case(f"index/{name}", call, [x] + tensors, strs=comps)

    x = ar(3, 4, 5)
    idx_case("int", ["1"], [], x)
    idx_case("neg_int", ["-1", "2"], [], x)
    idx_case("slice", ["1:3"], [], x)
    idx_case("slice_step", [":", "::2"], [], x)
    idx_case("slice_start_step", ["...", "1::3"], [], x)
    idx_case("slice_neg_bounds", ["-2:", ":-1"], [], x)
    idx_case("slice_out_of_range", ["1:10"], [], x)
    idx_case("none", ["None", "0"], [], x)
    idx_case("none_middle", [":", "None", "1"], [], x)
    idx_case("ellipsis_int", ["...", "0"], [], x)
    idx_case("ellipsis_none", ["...", "None"], [], x)
    idx_case("bool_true", ["True"], [], x)
    idx_case("long_index", ["@1"], [torch.tensor([2, 0, 2])], x)
    idx_case("long_index_neg", [":", "@1"], [torch.tensor([-1, 0])], x)
    idx_case("long_index_2d", ["@1"], [torch.tensor([[0, 1], [2, 2]])], x)
    idx_case("two_long_indices", ["@1", ":", "@2"], [torch.tensor([0, 2]), torch.tensor([4, 1])], x)
    idx_case("adjacent_long_indices", [":", "@1", "@2"],
             [torch.tensor([[0], [3]]), torch.tensor([1, 4])], x)
    idx_case("bool_mask", ["@1"], [torch.tensor([True, False, True])], x)
    idx_case("bool_mask_2d", ["@1"], [r.bools([3, 4])], x)
    idx_case("mask_then_slice", ["@1", "1:3"], [torch.tensor([False, True, True])], x)
    idx_case("int_slice_long", ["1", "::2", "@1"], [torch.tensor([0, 4, 4])], x)
    idx_case("int64_values", ["@1"], [torch.tensor([1, 0])], ar(3, 2, dt=torch.int64))

    # index_select / gather
    xs = ar(3, 4)
    fam.case("index_select/dim0", "torch.index_select(a0, i0, a1)", [xs, torch.tensor([2, 0, 2])],
             iargs=[0])
    fam.case("index_select/dim1", "torch.index_select(a0, i0, a1)",
             [xs.to(torch.int64), torch.tensor([3, 1])], iargs=[1])
    fam.case("index_select/empty", "torch.index_select(a0, i0, a1)",
             [xs, torch.empty(0, dtype=torch.int64)], iargs=[1])
    fam.case("index_select/1d", "torch.index_select(a0, i0, a1)",
             [ar(5, dt=torch.float64), torch.tensor([4, 4, 0])], iargs=[0])
    fam.case("gather/dim0", "torch.gather(a0, i0, a1)",
             [xs, torch.tensor([[2, 0, 1, 1], [0, 0, 2, 1]])],
             iargs=[0])
    fam.case("gather/dim1", "torch.gather(a0, i0, a1)",
             [xs, torch.tensor([[3, 0], [1, 1], [0, 2]])],
             iargs=[1])
    fam.case("gather/3d_dimneg1", "torch.gather(a0, i0, a1)",
             [ar(2, 3, 4, dt=torch.int64), r.ints([2, 3, 2], 0, 3)], iargs=[-1])

    # scatter / scatter_add / index_add
    fam.case("scatter/src_dim0", "torch.scatter(a0, i0, a1, a2)",
             [torch.zeros(3, 4), torch.tensor([[2, 0, 1, 1]]), u(2, 4)], iargs=[0])
    fam.case("scatter/src_dim1", "torch.scatter(a0, i0, a1, a2)",
             [xs.clone(), torch.tensor([[3, 0], [1, 2], [0, 3]]), u(3, 2)], iargs=[1])
    fam.case("scatter/value", "torch.scatter(a0, i0, a1, s0)",
             [xs.clone(), torch.tensor([[1, 2], [0, 3], [3, 3]]), ], iargs=[1], sargs=[-1.5],
             flags=["tensor_scalar"])
    fam.case("scatter_add/dim0", "torch.scatter_add(a0, i0, a1, a2)",
             [torch.ones(3, 4), torch.tensor([[2, 0, 2, 1], [2, 2, 0, 1]]), u(2, 4)], iargs=[0])
    fam.case("scatter_add/dim1_int64", "torch.scatter_add(a0, i0, a1, a2)",
             [torch.zeros(2, 3, dtype=torch.int64), torch.tensor([[0, 0, 2, 0], [1, 1, 1, 2]]),
              ar(2, 4, dt=torch.int64)], iargs=[1])
    fam.case("index_add/dim0", "torch.index_add(a0, i0, a1, a2)",
             [xs.clone(), torch.tensor([2, 0, 2]), u(3, 4)], iargs=[0])
    fam.case("index_add/dim1_alpha", "torch.index_add(a0, i0, a1, a2, alpha=s0)",
             [xs.to(torch.float64), torch.tensor([3, 3]), u(3, 2, dt=torch.float64)], iargs=[1],
             sargs=[-2.0])
    fam.case("index_add/int64_alpha", "torch.index_add(a0, i0, a1, a2, alpha=s0)",
             [ar(4, dt=torch.int64), torch.tensor([1, 1, 3]), torch.tensor([5, 6, 7])], iargs=[0],
             sargs=[2])

    # masked_fill / masked_select / nonzero / take
    m = r.bools([3, 4])
    fam.case("masked_fill/scalar_float32", "torch.masked_fill(a0, a1, s0)", [xs, m], sargs=[-1.0])
    fam.case("masked_fill/broadcast_mask", "torch.masked_fill(a0, a1, s0)",
             [xs, torch.tensor([True, False, False, True])], sargs=[math.nan])
    fam.case("masked_fill/int64_pyfloat", "torch.masked_fill(a0, a1, s0)",
             [xs.to(torch.int64), m], sargs=[2.5], note="the value is cast to the tensor's dtype")
    fam.case("masked_fill/bool", "torch.masked_fill(a0, a1, s0)", [m, ~m], sargs=[True])
    fam.case("masked_fill/tensor_value", "torch.masked_fill(a0, a1, a2)",
             [xs.to(torch.float64), m, torch.tensor(7.5)])
    fam.case("masked_fill/transposed", "torch.masked_fill(a0.mT, a1, s0)", [ar(4, 3), m],
             sargs=[0.0], flags=["transposed"])
    fam.case("masked_select/same_shape", "torch.masked_select(a0, a1)", [xs, m])
    fam.case("masked_select/broadcast", "torch.masked_select(a0, a1)",
             [xs.to(torch.int64), torch.tensor([True, False, True, True])])
    fam.case("masked_select/broadcast_self", "torch.masked_select(a0, a1)",
             [ar(4), r.bools([2, 4])])
    fam.case("masked_select/none", "torch.masked_select(a0, a1)",
             [xs, torch.zeros(3, 4, dtype=torch.bool)])
    fam.case("nonzero/float32", "torch.nonzero(a0)",
             [torch.tensor([[0.0, 1.5, 0.0], [-0.0, math.nan, 2.0]])],
             note="nan is nonzero, -0 is zero")
    fam.case("nonzero/int64_3d", "torch.nonzero(a0)", [r.ints([2, 3, 2], -1, 1)])
    fam.case("nonzero/bool_1d", "torch.nonzero(a0)", [r.bools([7])])
    fam.case("nonzero/none", "torch.nonzero(a0)", [torch.zeros(2, 3)])
    fam.case("nonzero/dim0", "torch.nonzero(a0)", [torch.tensor(3.0)])
    fam.case("take/2d_index", "torch.take(a0, a1)", [xs, torch.tensor([[0, 11], [-1, 5]])])
    fam.case("take/1d_index_int64", "torch.take(a0, a1)", [ar(2, 3, dt=torch.int64),
                                                          torch.tensor([5, 0, 3])])
    fam.case("take/transposed", "torch.take(a0.mT, a1)", [ar(3, 4), torch.tensor([1, 4, 11])],
             flags=["transposed"], note="take indexes the logical (transposed) order")
    return fam
