/**
 * The search layer's name for the index mapping types. They are declared in the grammar, whose
 * evaluator reads them to type document fields; both engines and every index definition use them.
 */
export type { FieldMapping, IndexMapping, ScalarType } from '../../grammar/index.js';
