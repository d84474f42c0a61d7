/**
 * The subset of OpenSearch mappings our indices use. Both engines read it: OpenSearch receives it
 * as is, the embedded engine picks its column and dictionary layouts from it.
 */
export type ScalarType = 'integer' | 'long' | 'float' | 'date' | 'boolean' | 'keyword' | 'ip';

export type FieldMapping =
  | { type: ScalarType }
  | { type: 'text'; analyzer?: string; fields?: Record<string, FieldMapping> }
  | { type: 'object' | 'nested'; properties: Record<string, FieldMapping> };

export interface IndexMapping {
  dynamic: false;
  properties: Record<string, FieldMapping>;
}
