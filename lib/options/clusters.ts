/**
 * Word clusters computed from plain text (`train-tagger`, `train-parser`): the file of text and
 * the number of classes, each defined once.
 */
import { z } from 'zod';
import { option } from './field.js';

/** Classes of the exchange clustering when none are given. */
export const CLUSTER_CLASSES = 128;

export const clusterTextFields = {
  clusterText: option(
    z.string().min(1).optional(),
    "compute the clusters instead, from the training words and this plain text (one sentence per line; 'train' = the training words alone): exchange clustering merged into a binary tree",
    { value: 'F|train' },
  ),
  clusterClasses: option(z.number().int().min(2).default(CLUSTER_CLASSES), 'number of classes of --cluster-text', {
    value: 'N',
  }),
};
