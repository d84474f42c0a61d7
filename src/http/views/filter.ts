/** The filter object (spec "Filter response", reference §5.8). */
import type { FilterRow } from '../../contexts/filters/types.js';

export interface FilterJson {
  id: number;
  name: string;
  description: string;
  public: boolean;
  system: boolean;
  user_count: number;
  user_id: number | null;
  hidden_tag_ids: number[];
  spoilered_tag_ids: number[];
  hidden_complex: string;
  spoilered_complex: string;
}

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
