/**
 * The `interactions` list of image answers (reference §5.4): the caller's hides, faves and votes
 * on the listed images; always `[]` for anonymous callers.
 */
import type { z } from 'zod';
import type { Interaction } from '../schemas/resources.js';

export type InteractionJson = z.output<typeof Interaction>;
export type InteractionType = InteractionJson['interaction_type'];

export function interactionView(
  imageId: number,
  userId: number,
  type: InteractionType,
  value: InteractionJson['value'] = '',
): InteractionJson {
  return { image_id: imageId, user_id: userId, interaction_type: type, value };
}
