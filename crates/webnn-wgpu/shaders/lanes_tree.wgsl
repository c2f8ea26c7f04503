// A row's lanes fold through workgroup memory (devices without subgroups).
fn lanes_reduce(op: u32, v: Acc, slot: u32, lane: u32) -> Acc {
    return lanes_fold_tree(op, v, slot, lane);
}
