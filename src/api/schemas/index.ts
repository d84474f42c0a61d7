/**
 * Zod schemas of every answer and parameter of the API (spec "Resources and their fields",
 * "Operations"): the one statement of the contract. The views' JSON types are their output types,
 * openapi/ turns them into the OpenAPI document, and test/openapi validates real answers of
 * every route against them. The views stay the code that produces the JSON (DESIGN decision 6).
 */
import type { z } from 'zod';
import * as common from './common.js';
import * as envelopes from './envelopes.js';
import * as live from './live.js';
import * as params from './params.js';
import * as resources from './resources.js';
import * as workbench from './workbench.js';

export * from './common.js';
export * from './envelopes.js';
export * from './live.js';
export * from './params.js';
export * from './resources.js';
export * from './workbench.js';

/** Every schema named with `.meta({ id })`, which the document lists under `components.schemas`. */
export const componentSchemas: readonly z.ZodType[] = ([
  common.ErrorBody,
  common.QueryErrorBody,
  common.FilterQueryErrorBody,
  common.BanErrorBody,
  common.ImageErrors,
  common.ImageErrorsBody,
  ...Object.values(resources),
  ...Object.values(envelopes),
  workbench.ClauseMatch,
  workbench.ExplainImage,
  workbench.UnknownName,
  workbench.FilterWriteBody,
  workbench.FilterExplainResponse,
  workbench.BenchClause,
  workbench.FilterTestResponse,
  workbench.AutocompleteLabels,
  workbench.AutocompleteRich,
  workbench.ImageIdParam,
  workbench.ExplainImageIdParam,
  ...Object.values(workbench.inlineFilterParams),
  workbench.SampleParam,
  workbench.TermParam,
  workbench.CursorParam,
  workbench.FormatParam,
  workbench.SuggestionLimitParam,
  ...Object.values(params.queryParams),
  params.OembedUrlParam,
  params.SubmissionUrlParam,
  params.SubmissionBody,
  params.ReverseSearchBody,
  params.ReverseSearchUpload,
  live.Change,
  live.ChangesResponse,
  live.CursorExpiredBody,
  live.ChangeCursor,
  live.ChangeLimit,
  live.LastEventId,
] as z.ZodType[]).filter((value, i, all) => all.indexOf(value) === i);
