/**
 * The arena's record layout in one place: every word offset, tag and
 * sentinel the engine writes into or reads from the arena (arena.ts) is a
 * named constant here. They are plain `const` numbers, which V8 inlines, so
 * naming them costs the hot path nothing.
 *
 * The arena is one Int32Array (with a Float64Array over the same bytes);
 * blocks are power-of-two sized, at least 4 words, aligned to 4 words, and
 * offset 0 is never handed out (NONE). Four kinds of thing live in it:
 *
 *   group record (one per driver group; none when one hit decides the rule)
 *   +-------+-------+------+--------+---------+---------+---------------+-----+
 *   | EPOCH | COUNT | NEED | G_RULE | G_INDEX | G_WORDS | G_GROUP_WORDS |  -  |  G_HEAD = 8 words
 *   +-------+-------+------+--------+---------+---------+---------------+-----+
 *   | its own verify conditions, in check order (G_WORDS words)               |
 *   | its rule's verify groups, when the rule has no rule record              |
 *   |   (G_GROUP_WORDS words: group head, conditions, group head, ...)        |
 *   +-------------------------------------------------------------------------+
 *   G_RULE: the rule record's offset, or NO_RULE_RECORD; G_INDEX: rule number.
 *
 *   rule record (AND rules with several driver groups)
 *   +-------+-------+------+---------+---------+-----+
 *   | EPOCH | COUNT | NEED | R_INDEX | R_WORDS |  -  |  R_HEAD = 6 words
 *   +-------+-------+------+---------+---------+-----+
 *   | verify groups (R_WORDS words)                  |
 *   +------------------------------------------------+
 *   NEED here is the number of driver groups; each completed group adds a hit.
 *
 *   verify group:  [op | size << SIZE_SHIFT, 0] then its conditions; op GROUP_AND / GROUP_OR
 *
 *   condition (code.ts; always an even number of words)
 *   +----------------------------+--------+----------------------------------+
 *   | kind | size << SIZE_SHIFT  | C_SLOT | operands: int at C_OPERAND, or   |
 *   | (C_TAG)                    |        | C_COUNT + ids from C_IDS, or     |
 *   |                            |        | float64s at float index C_NUM..  |
 *   +----------------------------+--------+----------------------------------+
 *
 *   posting list (postings.ts; one per driver value / threshold / affix / residual)
 *   +-------+-------+--------+--------+--------------------------+--------------------+
 *   | P_LEN | P_CAP | P_MASK | P_COND | condition (P_COND words) | (target, mask) ... |
 *   +-------+-------+--------+--------+--------------------------+--------------------+
 *   P_MASK: the AND of the entries' presence masks. A target is a group
 *   record's offset, or ruleTarget(rule number) (negative) for a group one
 *   hit decides. Owners hold a handle; `postings.at[handle]` is the block.
 *
 * Worked example: the rule
 *   r1: AND [ user.tier in gold,platinum AND tokens gt 1000 ]
 * in an empty engine gets rule number 0, one
 * group record driven by the `in` (which verifies `tokens > 1000` inline),
 * no rule record, and one posting list per named value. `dumpRule` prints
 * (test/engine/layout.test.ts checks that it still prints exactly this):
 *
 * BEGIN EXAMPLE
 * rule "r1" number 0
 * group record @4 [0, 0, 1, 0, 0, 4, 0, 0]
 *   @12 [1037, 1, 0, 1083129856]  tokens NUM_GT 1000
 *   driver user.tier TEXT_IN gold,platinum
 *     list #1 @20 [1, 2, 2, 0, 4, 2]
 *     list #2 @28 [1, 2, 2, 0, 4, 2]
 * END EXAMPLE
 *
 * Read word by word:
 *   @4  group record: EPOCH 0, COUNT 0 (never hit), NEED 1 (one driver),
 *       G_RULE 0 (NO_RULE_RECORD: this group decides r1), G_INDEX 0 (r1's
 *       number), G_WORDS 4 (one 4-word condition follows), G_GROUP_WORDS 0
 *       (no other groups), padding. Its 12 words take a 16-word block.
 *   @12 condition: 1037 = NUM_GT (13) | 4 << SIZE_SHIFT; C_SLOT 1 (tokens;
 *       user.tier took slot 0); words 2-3 are the float64 1000
 *       (0x408F4000_00000000: low word 0, high word 1083129856).
 *   @20 list for user.tier = "gold" (value id 1), handle #1: P_LEN 1,
 *       P_CAP 2 (an 8-word block), P_MASK 2, P_COND 0 (not a residual),
 *       then the entry (target 4 = the group record, mask 2 = tokens'
 *       presence bit: a request without `tokens` skips the list unread).
 *   @28 the same for "platinum" (value id 2), handle #2.
 * A request { user.tier: "gold", tokens: 5000 } walks list #1, counts a hit
 * on @4 (COUNT 1 = NEED), checks @12 (5000 > 1000) and lists rule 0.
 */

/**
 * Every word offset, tag and marker, as a `const enum`: tsc writes each use
 * as its number, so naming them costs the hot path nothing (a plain exported
 * `const` is read as a property of this module on every use; bench: engine,
 * mixed 10k and 100k, scoped 100k).
 */
export const enum Layout {
  // ---- Offsets and handles -------------------------------------------------

  /** Offset 0 is never allocated (arena.ts), and handle 0 never issued (postings.ts): both mean "none". */
  NONE = 0,
  /** A group record's G_RULE when the group alone decides its rule (no rule record). */
  NO_RULE_RECORD = NONE,
  /** The rule number of an active rule that can never match (it has no records). */
  NEVER_MATCHES = -1,
  /**
   * Posting targets below this are not records but `~rule number`: a group one
   * hit decides lists its rule without reading a record (bench: engine, 10k
   * mixed: half of all hits).
   */
  RULE_TARGET_BELOW = 0,

  // ---- Group and rule records ---------------------------------------------

  /** Both record kinds begin [epoch of the last hit, hits in that epoch, hits needed]. */
  EPOCH = 0,
  COUNT = 1,
  NEED = 2,
  /** Group record: the rule record's offset, or NO_RULE_RECORD. */
  G_RULE = 3,
  /** Group record: the rule number. */
  G_INDEX = 4,
  /** Group record: words of the group's own verify conditions. */
  G_WORDS = 5,
  /** Group record: words of its rule's verify groups inlined after them (rules with no rule record). */
  G_GROUP_WORDS = 6,
  /** Group record: words before its verify conditions (word 7 is padding, so conditions start even). */
  G_HEAD = 8,
  /** Rule record: the rule number. */
  R_INDEX = 3,
  /** Rule record: words of its verify groups. */
  R_WORDS = 4,
  /** Rule record: words before its verify groups (word 5 is padding). */
  R_HEAD = 6,

  // ---- Verify groups (inside records) -------------------------------------

  /** A verify group's head: [operator | size << SIZE_SHIFT, 0], then its conditions. */
  GROUP_AND = 0,
  GROUP_OR = 1,
  /** A group head's second word, unused (it keeps the conditions at even offsets). */
  GROUP_SPARE = 1,
  GROUP_HEAD = 2,

  // ---- Conditions (code.ts) ------------------------------------------------

  /** Word 0 of a condition or group head: kind (or operator) in the low byte, size in words above. */
  C_TAG = 0,
  SIZE_SHIFT = 8,
  KIND_MASK = 0xff,
  /** Word 1: the field slot. */
  C_SLOT = 1,
  /** Word 2: the one int operand (value id, string or regex index, boolean), or an `in` list's length. */
  C_OPERAND = 2,
  C_COUNT = 2,
  /** Word 3 on: a text `in` list's value ids, ascending. */
  C_IDS = 3,
  /** Float64 operands, counted in float64s from the condition's start (`(at >> 1) + k`): the number, BETWEEN's high. */
  C_NUM = 1,
  C_NUM2 = 2,
  /** A number `in` list's values, ascending, from this float64. */
  C_NUMS = 2,
  /** Every condition is an even number of words long; the fixed-size ones take this many. */
  C_WORDS = 4,
  C_BETWEEN_WORDS = 6,
  /** BOOL_EQ operands and slotBool values. */
  BOOL_TRUE = 1,
  BOOL_FALSE = 0,
  /** slotBool when the request's value is not a boolean. */
  NOT_BOOL = -1,
  /** slotValue when the request's text is a value no rule names on the field. */
  NO_VALUE = 0,

  // ---- Posting lists (postings.ts) -----------------------------------------

  /** Block: [LEN, CAP, MASK, COND_WORDS, condition code (COND_WORDS words), (target, mask) * CAP]. */
  P_LEN = 0,
  P_CAP = 1,
  P_MASK = 2,
  P_COND = 3,
  /** Words before the condition code. */
  P_HEAD = 4,
  /** An entry: [target, presence mask]. */
  E_TARGET = 0,
  E_MASK = 1,
  ENTRY_WORDS = 2,
  /** P_MASK of an empty list: the intersection of no masks. */
  ALL_FIELDS = ~0,
}

/** The posting target that stands for rule number `index` (see RULE_TARGET_BELOW). */
export const ruleTarget = (index: number): number => ~index;
