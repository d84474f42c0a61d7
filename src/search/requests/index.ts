export { buildImageSearch, visibleImages, type HiddenByFilter, type ImageSearchOptions, type ImageVisibility } from './images.js';
export { IMAGE_SORT_FIELDS, parseImageSort, parseSortDirection, randomScore, type ImageSort, type SortDirection } from './image-sort.js';
export { buildCommentSearch, type CommentSearchOptions } from './comments.js';
export { buildPostSearch } from './posts.js';
export { buildGallerySearch } from './galleries.js';
export { buildTagSearch } from './tags.js';
export { buildFilterSearch } from './filters.js';
export { pageWindow, type Page } from './paging.js';
