/**
 * The `interactions` list of image answers (reference §5.4): the caller's hides, faves and votes
 * on the listed images; always `[]` for anonymous callers.
 */

export type InteractionType = 'hidden' | 'faved' | 'voted';

export interface InteractionJson {
  image_id: number;
  user_id: number;
  interaction_type: InteractionType;
  value: '' | 'up' | 'down';
}

export function interactionView(
  imageId: number,
  userId: number,
  type: InteractionType,
  value: InteractionJson['value'] = '',
): InteractionJson {
  return { image_id: imageId, user_id: userId, interaction_type: type, value };
}
