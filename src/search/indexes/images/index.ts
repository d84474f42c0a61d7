import { images } from '../../../db/schema/index.js';
import type { IndexDefinition } from '../definition.js';
import { imageFields } from './fields.js';
import { imagesMapping } from './mapping.js';

/** The `images` index: mapping and query fields (reference §2). */
export const imagesIndex: IndexDefinition = {
  name: 'images',
  mapping: imagesMapping,
  fields: imageFields,
  table: images,
};
