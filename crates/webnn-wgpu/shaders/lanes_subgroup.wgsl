// A row's lanes fold with subgroup shuffles when they fit in the device's smallest subgroup
// (SUBGROUP_MIN, prepended by the module's source), through workgroup memory otherwise.
// The rows frame's 1-D workgroup puts consecutive invocations in one subgroup, so lane l and
// lane l ^ s of a row (s < LANES <= SUBGROUP_MIN) share a subgroup at ids differing by s.
// Lane 0 combines the same operands in the same order as the tree, so both paths give the
// same bits; every lane gets the result. No barrier: every invocation must still call it (it
// may take the tree path).
fn lanes_reduce(op: u32, v: Acc, slot: u32, lane: u32) -> Acc {
    if (LANES > SUBGROUP_MIN) {
        return lanes_fold_tree(op, v, slot, lane);
    }
    var x = v;
    var s = LANES / 2u;
    loop {
        if (s == 0u) {
            break;
        }
        x = acc_combine(op, x, subgroupShuffleXor(x, s));
        s = s / 2u;
    }
    return x;
}
