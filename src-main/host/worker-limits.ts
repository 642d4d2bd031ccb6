// Heap settings for the threads that decode. Decoding allocates many short-lived objects per message
// (readers, typed values, summaries); with V8's default 16 MiB semi-spaces the young generation fills
// every few hundred messages and scavenges took ~16 % of the index pass on the bench's game capture.
// A 64 MiB semi-space (192 MiB young generation: two semi-spaces plus V8's equal-sized large-object
// space) cut the pass by about a quarter there (npm run bench), at a fixed cost per thread well inside
// the 1.5 GB budget. It costs memory where many conversations are open at once: their objects outlive the
// scavenges, die in the old generation and wait there for a full collection. `decode` of a million TCP
// connections peaked at 899 MiB with it, 616 MiB with V8's default (README, Memory). Measured again after
// the decoders allocated less (README, Performance): opening the game capture in the session worker was
// about 4 % faster with V8's default, `decode` with trees about 12 % slower; it stays for the exports.
import type { ResourceLimits } from 'node:worker_threads'

export const DECODE_WORKER_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 192 }

/**
 * Shard workers (`--jobs 2` and more) each add their own young generation and their own old-generation
 * garbage from the conversations open at once. Opening a million TCP connections in two shards
 * (`open-session.mjs --jobs 2`) peaked at 1,549 MiB with a 192 MiB young generation, 1,323–1,328 MiB with
 * 96 MiB, 1,166–1,220 MiB with 48 MiB and 1,178 MiB with 32 MiB; `serve --jobs 2` with the conversation
 * panel open, 1,426 MiB with 96 and 1,311 MiB with 48. On the game capture `stats`, `decode --tree none`
 * and `decode` with two shards took the same time with 192, 96 and 48 MiB, alternating, within the noise.
 * The one decoding thread of `--jobs 1` keeps the larger size.
 */
export const SHARD_WORKER_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 48 }
