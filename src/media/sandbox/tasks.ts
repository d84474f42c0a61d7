/**
 * The work a sandbox child does (sandbox/child.ts), by name, and what each answers. Every task is
 * a whole decode of a request or a job, so that one message goes each way: the bytes in, the
 * result out.
 *
 * - `intake`: a submission's analysis and the check that the whole file decodes;
 * - `search-key`: a reverse search's analysis, intensities and fingerprint;
 * - `process`: the processing job's analysis, search keys and representations.
 */
import { analyzeImage, verifyImageDecodes, type AnalyzeOptions, type ImageAnalysis } from '../analyze.js';
import { computeSearchKeys, type QueryHashes } from '../fingerprint.js';
import type { Intensities } from '../intensities.js';
import { processImage, type ProcessedImage, type ProcessOptions } from '../process.js';

export interface SearchKeyResult {
  intensities: Intensities;
  /** Its hashes and those of its mirror images and rotations. */
  query: QueryHashes;
  aspectRatio: number;
  sha512: string;
}

export interface SandboxTasks {
  intake: { options: AnalyzeOptions; result: ImageAnalysis };
  'search-key': { options: AnalyzeOptions; result: SearchKeyResult };
  process: { options: ProcessOptions; result: ProcessedImage };
}

export type SandboxTask = keyof SandboxTasks;

export async function runTask<T extends SandboxTask>(task: T, bytes: Buffer, options: SandboxTasks[T]['options']): Promise<SandboxTasks[T]['result']> {
  const run = TASKS[task] as (bytes: Buffer, options: SandboxTasks[T]['options']) => Promise<SandboxTasks[T]['result']>;
  return run(bytes, options);
}

const TASKS: { [T in SandboxTask]: (bytes: Buffer, options: SandboxTasks[T]['options']) => Promise<SandboxTasks[T]['result']> } = {
  intake: async (bytes, options) => {
    const analysis = await analyzeImage(bytes, options);
    await verifyImageDecodes(bytes, analysis.format);
    return analysis;
  },
  'search-key': async (bytes, options) => {
    const analysis = await analyzeImage(bytes, options);
    const { intensities, query } = await computeSearchKeys(bytes, analysis, options);
    return { intensities, query, aspectRatio: analysis.aspectRatio, sha512: analysis.sha512 };
  },
  process: (bytes, options) => processImage(bytes, options),
};

export const isSandboxTask = (name: unknown): name is SandboxTask => typeof name === 'string' && Object.hasOwn(TASKS, name);
