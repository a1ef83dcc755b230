/**
 * BM25F over a few fields: a term's frequency in each field is normalised by
 * that field's length against its average (per-field `b`), weighted per
 * field, summed, and only then saturated (`k1`), so a word found in the name
 * and the description counts more than in one of them, but never without
 * bound. Documents are added and removed one at a time; each term's
 * saturated weights are computed when a query first needs them after a
 * change, so a sync that changes a few tools costs only those tools.
 *
 * Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and
 * Beyond" (2009), section 3.
 */

/** How one field counts. */
export interface FieldWeight {
  /** what a word in this field counts, against 1 */
  weight: number;
  /** length normalisation: 0 none, 1 full */
  b: number;
}

/** One document: its terms per field, in order (duplicates kept). */
export type FieldTerms = readonly (readonly string[])[];

/** A term's weights in every document holding it, valid for one generation of the index. */
interface TermWeights {
  generation: number;
  docs: Int32Array;
  /** tf~ / (k1 + tf~) per document */
  saturated: Float64Array;
}

/** The inverted index and its statistics. */
export class Bm25f {
  /** term → document → frequency per field */
  private readonly postings = new Map<string, Map<number, Uint16Array>>();
  private readonly weights = new Map<string, TermWeights>();
  /** each document's field lengths (undefined: a free slot) */
  private readonly lengths: Array<Uint16Array | undefined> = [];
  private readonly free: number[] = [];
  private readonly totals: Float64Array;
  private count = 0;
  /** bumped by every change: cached weights of an older generation are recomputed */
  private generation = 0;

  constructor(
    private readonly fields: readonly FieldWeight[],
    private readonly k1: number,
  ) {
    this.totals = new Float64Array(fields.length);
  }

  /** Documents held. */
  get size(): number {
    return this.count;
  }

  /** Adds a document; returns its number (a removed document's number may be reused). */
  add(fieldTerms: FieldTerms): number {
    const doc = this.free.pop() ?? this.lengths.length;
    const lengths = new Uint16Array(this.fields.length);
    fieldTerms.forEach((words, field) => {
      lengths[field] = Math.min(words.length, 0xffff);
      this.totals[field]! += lengths[field]!;
      for (const term of words) {
        let docs = this.postings.get(term);
        if (!docs) this.postings.set(term, (docs = new Map()));
        let tf = docs.get(doc);
        if (!tf) docs.set(doc, (tf = new Uint16Array(this.fields.length)));
        if (tf[field]! < 0xffff) tf[field]!++;
      }
    });
    this.lengths[doc] = lengths;
    this.count++;
    this.generation++;
    return doc;
  }

  /** Removes document `doc`, given the terms it was added with. */
  remove(doc: number, fieldTerms: FieldTerms): void {
    const lengths = this.lengths[doc];
    if (!lengths) return;
    lengths.forEach((length, field) => {
      this.totals[field]! -= length;
    });
    for (const words of fieldTerms) {
      for (const term of words) {
        const docs = this.postings.get(term);
        if (!docs) continue;
        docs.delete(doc);
        if (!docs.size) {
          this.postings.delete(term);
          this.weights.delete(term);
        }
      }
    }
    this.lengths[doc] = undefined;
    this.free.push(doc);
    this.count--;
    this.generation++;
  }

  /** Largest document number + 1: the size of a score array. */
  get capacity(): number {
    return this.lengths.length;
  }

  /** Documents holding `term`. */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.size ?? 0;
  }

  /** The inverse document frequency of `term` (BM25's, never negative). */
  idf(term: string): number {
    const df = this.documentFrequency(term);
    return df ? Math.log(1 + (this.count - df + 0.5) / (df + 0.5)) : 0;
  }

  /** Adds `factor` × idf × saturated weight of `term` to each document holding it; calls `hit` for each. */
  accumulate(term: string, factor: number, scores: Float64Array, hit: (doc: number) => void): void {
    const weights = this.weightsOf(term);
    if (!weights) return;
    const scale = factor * this.idf(term);
    const { docs, saturated } = weights;
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      hit(doc);
      scores[doc]! += scale * saturated[i]!;
    }
  }

  /** The fields of `doc` that hold `term`, as indexes into the field list. */
  fieldsOf(term: string, doc: number): number[] {
    const tf = this.postings.get(term)?.get(doc);
    if (!tf) return [];
    const out: number[] = [];
    tf.forEach((n, field) => {
      if (n > 0) out.push(field);
    });
    return out;
  }

  private weightsOf(term: string): TermWeights | undefined {
    const cached = this.weights.get(term);
    if (cached?.generation === this.generation) return cached;
    const postings = this.postings.get(term);
    if (!postings) return undefined;
    const averages = Array.from(this.totals, (total) => (this.count ? total / this.count : 0));
    const docs = new Int32Array(postings.size);
    const saturated = new Float64Array(postings.size);
    let i = 0;
    for (const [doc, tf] of postings) {
      const lengths = this.lengths[doc]!;
      let pseudo = 0;
      for (let field = 0; field < tf.length; field++) {
        const n = tf[field]!;
        if (!n) continue;
        const { weight, b } = this.fields[field]!;
        const average = averages[field]! || 1;
        pseudo += (weight * n) / (1 - b + (b * lengths[field]!) / average);
      }
      docs[i] = doc;
      saturated[i] = pseudo / (this.k1 + pseudo);
      i++;
    }
    const weights = { generation: this.generation, docs, saturated };
    this.weights.set(term, weights);
    return weights;
  }
}
