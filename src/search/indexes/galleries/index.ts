import { galleries } from '../../../db/schema/index.js';
import type { IndexDefinition } from '../definition.js';
import { galleryFields } from './fields.js';
import { galleriesMapping } from './mapping.js';

/** The `galleries` index: mapping and query fields (reference §2). */
export const galleriesIndex: IndexDefinition = {
  name: 'galleries',
  mapping: galleriesMapping,
  fields: galleryFields,
  table: galleries,
};
