/**
 * Node's flags for every server the bench starts, the bench's own setting: production takes its heap from the
 * container's memory limit or NODE_OPTIONS, while the figures in docs/BENCHMARKS.md were measured on a 2-core
 * machine with these. `BENCH_NODE_FLAGS` replaces them.
 */
export const BENCH_NODE_FLAGS: string[] = (
  process.env.BENCH_NODE_FLAGS ?? '--max-old-space-size=96 --max-semi-space-size=8'
)
  .split(' ')
  .filter(Boolean);
