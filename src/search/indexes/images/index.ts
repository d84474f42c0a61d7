import { images } from '../../../db/schema/index.js';
import type { IndexDefinition } from '../definition.js';
import { loadImageDocuments } from './document.js';
import { imageFields } from './fields.js';
import { imagesMapping } from './mapping.js';

/** The `images` index: mapping, query fields and document builder (reference §2). */
export const imagesIndex: IndexDefinition = {
  name: 'images',
  mapping: imagesMapping,
  fields: imageFields,
  loadDocuments: loadImageDocuments,
  table: images,
};
