/** Semantic checks on a comment body that JSON Schema cannot express (run after validate('comment-create'|'comment-update')). */
import { type FieldError, ValidationError } from '../shared/errors';

export interface CommentBody {
  id?: number;
  text: string;
  email?: string;
  dataViewId: number;
  dateFrom: string;
  dateTo: string;
  categories?: Record<string, string | null>;
}

/** Field errors of a schema-valid comment body against the categories of its data view; [] when it is fine. */
export function commentRuleErrors(
  comment: Pick<CommentBody, 'dateFrom' | 'dateTo' | 'categories'>,
  dataViewCategories: readonly string[],
): FieldError[] {
  const errors: FieldError[] = [];
  if (comment.dateFrom > comment.dateTo) {
    errors.push({ path: 'dateTo', message: `must not be before dateFrom (${comment.dateFrom})` });
  }
  const known = new Set(dataViewCategories);
  for (const name of Object.keys(comment.categories ?? {})) {
    if (!known.has(name)) {
      const list = dataViewCategories.length ? dataViewCategories.join(', ') : 'none';
      errors.push({
        path: `categories.${name}`,
        message: `is not a category of the data view (categories: ${list})`,
      });
    }
  }
  return errors;
}

/** Throws one ValidationError listing every rule the comment breaks. */
export function checkCommentRules(
  comment: Pick<CommentBody, 'dateFrom' | 'dateTo' | 'categories'>,
  dataViewCategories: readonly string[],
): void {
  const errors = commentRuleErrors(comment, dataViewCategories);
  if (errors.length) {
    const first = errors[0];
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    throw new ValidationError(`Invalid comment: ${first.path} ${first.message}${more}.`, errors);
  }
}

/** On update the route id wins; a body id, when set, must name the same comment. */
export function checkRouteId(routeId: number, bodyId: number | null | undefined): void {
  if (bodyId !== undefined && bodyId !== null && bodyId !== routeId) {
    throw ValidationError.field('id', `must equal the id in the path (${routeId}), got ${bodyId}`);
  }
}
