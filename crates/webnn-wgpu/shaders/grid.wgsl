// The dispatch of the element-wise and scatter frames: a grid-stride loop over P.units calling
// the frame's `run_unit(u)`. The dispatch may be 2-D and smaller than the work, so no dimension
// needs more than 65535 workgroups.

// Threads per workgroup; set by the pipeline so that Rust's dispatch arithmetic agrees.
override WG: u32 = 64u;
// The op of the domain file this pipeline runs (codes.wgsl); kernels without ops ignore it.
override OP: u32 = 0u;

@compute @workgroup_size(WG)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let threads = groups.x * groups.y * WG;
    var u = (group.y * groups.x + group.x) * WG + lane;
    loop {
        if (u >= P.units) {
            break;
        }
        run_unit(u);
        // Stop before u + threads could wrap around.
        if (threads >= P.units - u) {
            break;
        }
        u += threads;
    }
}
