/** The largest value of a PostgreSQL `integer` column (ids, positions, counts). */
export const INT32_MAX = 2_147_483_647;
