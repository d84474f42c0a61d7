/** The filter object (spec "Filter response", reference §5.8). */
import type { FilterRow } from '../../contexts/filters/types.js';
import type { z } from 'zod';
import type { Filter } from '../schemas/resources.js';

export type FilterJson = z.output<typeof Filter>;

export function filterView(filter: FilterRow): FilterJson {
  return {
    id: filter.id,
    name: filter.name,
    description: filter.description,
    public: filter.public,
    system: filter.system,
    user_count: filter.userCount,
    user_id: filter.userId,
    hidden_tag_ids: [...filter.hiddenTagIds],
    spoilered_tag_ids: [...filter.spoileredTagIds],
    hidden_complex: filter.hiddenComplexStr,
    spoilered_complex: filter.spoileredComplexStr,
  };
}
