// The frame of row kernels: reductions, arg reductions, softmax, normalizations, cumulative
// sums and pooling. A row is the set of input elements folded (or normalized, or scanned)
// together. LANES invocations share a row, so each 64-invocation workgroup handles 64 / LANES
// rows at a time, looping over the rows when there are more than workgroups. The body defines
// `row_count()` and `run_row(row, slot, lane, live)`; `live` is false for the invocations
// of a last, partial batch of rows, which still reach every barrier.

const ROW_WG: u32 = 64u;
// Invocations per row: a power of two up to ROW_WG, chosen from the row length.
override LANES: u32 = 64u;
// The op of the domain file (codes.wgsl).
override OP: u32 = 0u;

@compute @workgroup_size(64)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let per_group = ROW_WG / LANES;
    let slot = t / LANES;
    let lane = t % LANES;
    let count = row_count();
    let stride = groups.x * groups.y;
    var g = group.y * groups.x + group.x;
    loop {
        if (g >= (count + per_group - 1u) / per_group) {
            break;
        }
        let row = g * per_group + slot;
        run_row(row, slot, lane, row < count);
        g += stride;
    }
}
