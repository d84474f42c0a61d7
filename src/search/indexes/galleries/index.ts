import { galleries } from '../../../db/schema/index.js';
import type { IndexDefinition } from '../definition.js';
import { loadGalleryDocuments } from './document.js';
import { galleryFields } from './fields.js';
import { galleriesMapping } from './mapping.js';

/** The `galleries` index: mapping, query fields and document builder (reference §2). */
export const galleriesIndex: IndexDefinition = {
  name: 'galleries',
  mapping: galleriesMapping,
  fields: galleryFields,
  loadDocuments: loadGalleryDocuments,
  table: galleries,
};
