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

/** Frequencies per field packed into one number, a byte per field (at most 6 fields, each capped at 255). */
const BYTE = 256;

/** A term's weights in every document holding it, valid for one generation of the index. */
interface TermWeights {
  generation: number;
  docs: Int32Array;
  /** tf~ / (k1 + tf~) per document */
  saturated: Float64Array;
}

/** The inverted index and its statistics. */
export class Bm25f {
  /** term → the documents holding it and, at the same index, its frequency per field there, packed (BYTE) */
  private readonly postings = new Map<string, { docs: number[]; tfs: number[] }>();
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
    if (fields.length > 6) throw new RangeError('Bm25f packs at most 6 fields');
    this.totals = new Float64Array(fields.length);
    this.units = fields.map((_, field) => BYTE ** field);
  }

  /** what one occurrence adds to a packed frequency, per field */
  private readonly units: number[];

  /** Documents held. */
  get size(): number {
    return this.count;
  }

  /** Adds a document; returns its number (a removed document's number may be reused). */
  add(fieldTerms: FieldTerms): number {
    const doc = this.free.pop() ?? this.lengths.length;
    const lengths = new Uint16Array(this.fields.length);
    const own = new Map<string, number>();
    fieldTerms.forEach((words, field) => {
      lengths[field] = Math.min(words.length, 0xffff);
      this.totals[field]! += lengths[field]!;
      const unit = this.units[field]!;
      for (const term of words) {
        const packed = own.get(term) ?? 0;
        if (Math.floor(packed / unit) % BYTE < BYTE - 1) own.set(term, packed + unit);
      }
    });
    for (const [term, packed] of own) {
      const postings = this.postings.get(term);
      if (postings) {
        postings.docs.push(doc);
        postings.tfs.push(packed);
      } else this.postings.set(term, { docs: [doc], tfs: [packed] });
    }
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
    for (const term of new Set(fieldTerms.flat())) {
      const postings = this.postings.get(term);
      const at = postings?.docs.indexOf(doc) ?? -1;
      if (at < 0) continue;
      postings!.docs.splice(at, 1);
      postings!.tfs.splice(at, 1);
      if (!postings!.docs.length) {
        this.postings.delete(term);
        this.weights.delete(term);
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
    return this.postings.get(term)?.docs.length ?? 0;
  }

  /** The inverse document frequency of `term` (BM25's, never negative). */
  idf(term: string): number {
    const df = this.documentFrequency(term);
    return df ? Math.log(1 + (this.count - df + 0.5) / (df + 0.5)) : 0;
  }

  /** `term`'s documents and their saturated weights (tf~ / (k1 + tf~)), or undefined when no document holds it. */
  weightsOf(term: string): { docs: Int32Array; saturated: Float64Array } | undefined {
    const cached = this.weights.get(term);
    if (cached?.generation === this.generation) return cached;
    return this.computeWeights(term);
  }

  private computeWeights(term: string): TermWeights | undefined {
    const postings = this.postings.get(term);
    if (!postings) return undefined;
    const averages = Array.from(this.totals, (total) => (this.count ? total / this.count : 0));
    const docs = Int32Array.from(postings.docs);
    const saturated = new Float64Array(docs.length);
    for (let i = 0; i < docs.length; i++) {
      const lengths = this.lengths[docs[i]!]!;
      let pseudo = 0;
      let packed = postings.tfs[i]!;
      for (let field = 0; packed > 0; field++, packed = Math.floor(packed / BYTE)) {
        const n = packed % BYTE;
        if (!n) continue;
        const { weight, b } = this.fields[field]!;
        const average = averages[field]! || 1;
        pseudo += (weight * n) / (1 - b + (b * lengths[field]!) / average);
      }
      saturated[i] = pseudo / (this.k1 + pseudo);
    }
    const weights = { generation: this.generation, docs, saturated };
    this.weights.set(term, weights);
    return weights;
  }
}
