// Folds one value per lane of a row into the row's result with the domain's acc_combine, as a
// tree in workgroup memory; every invocation of the workgroup must call it (it has barriers).
// `lanes_reduce` (lanes_tree.wgsl, or lanes_subgroup.wgsl where the device has subgroups)
// is what the kernels call.
var<workgroup> lane_acc: array<Acc, 64>;

fn lanes_fold_tree(op: u32, v: Acc, slot: u32, lane: u32) -> Acc {
    let at = slot * LANES + lane;
    lane_acc[at] = v;
    workgroupBarrier();
    var s = LANES / 2u;
    loop {
        if (s == 0u) {
            break;
        }
        if (lane < s) {
            lane_acc[at] = acc_combine(op, lane_acc[at], lane_acc[at + s]);
        }
        workgroupBarrier();
        s = s / 2u;
    }
    let r = lane_acc[slot * LANES];
    workgroupBarrier();
    return r;
}
