/** Option fields shared by many commands and trainers (see lib/commands/options.ts). */
import { z } from 'zod';
import { option } from './field.js';

/** Worker threads; 0 means all cores. */
export const threads = option(z.number().int().min(0).default(0), 'worker threads (0 = all cores)', { value: 'N' });

/** Silences progress bars and progress lines. */
export const quiet = option(z.boolean().default(false), 'no progress bars or progress lines on stderr');

/** Prints the command's result as one JSON object on stdout. */
export const json = option(z.boolean().default(false), 'print the result as JSON on stdout');

/** A file the command needs. */
export const requiredFile = (description: string, value = 'F'): z.ZodString =>
  option(z.string().min(1), description, { value });

/** A file the command can do without. */
export const optionalFile = (description: string, value = 'F'): z.ZodOptional<z.ZodString> =>
  option(z.string().min(1).optional(), description, { value });

/**
 * Training checkpoints (lib/io/checkpoint.ts), the same two options on every trainer:
 * `checkpoint` is written after every epoch / iteration (boosting: every chunk of rounds),
 * `resume` continues from one, with the same data and options and a new epoch or round count.
 */
export const checkpointFields = {
  checkpoint: option(
    z.string().min(1).optional(),
    'write a training checkpoint here after every epoch, L-BFGS iteration or 1000 boosting rounds (atomically; docs/formats.md), for --resume',
    { value: 'F' },
  ),
  resume: option(
    z.string().min(1).optional(),
    'continue training from this checkpoint (same data and options; --epochs / --rounds may grow): the model equals one run of that length',
    { value: 'F' },
  ),
};

/** The column format of tagging input (lib/io/conllu.ts columnFormatOf). */
export const columnFormat = option(
  z.enum(['conll', 'conllu']).optional(),
  'input format (default: conllu for *.conllu files, else conll)',
);
