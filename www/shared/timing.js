// How the benchmark pages time two runtimes against each other on one machine.

/** The median of `v`. */
export const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

/**
 * Times `runs` calls of each runner's `run()` into its `times` (ms), in at most five blocks
 * that alternate between the runners, with a pause before each block: both runtimes keep
 * worker threads that spin for a while after a run, and one's spinning workers would take
 * cores from the other's run. Alternating blocks spread any drift of the machine's speed
 * over both. `progress(done, total)` is called after each run.
 */
export async function timedBlocks(runners, runs, progress = () => {}) {
  for (const r of runners) r.times = [];
  const blocks = Math.min(runs, 5);
  let done = 0;
  for (let b = 0; b < blocks; b++) {
    const n = Math.round(((b + 1) * runs) / blocks) - Math.round((b * runs) / blocks);
    for (const r of runners) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await r.run();
        r.times.push(performance.now() - t);
        progress(++done, runners.length * runs);
      }
    }
  }
}
