/** GET /profiles/:user_id (reference §5.8): 404 for unknown and deactivated users. */
import { and, asc, desc, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { badgeAwards, badges, userLinks, users } from '../../db/schema/index.js';
import type { AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { cacheFor } from '../middleware/cache.js';
import { validPath } from '../validate.js';
import { isPublicLink, profileView } from '../views/profile.js';

export function profileRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/profiles/:user_id', validPath('user_id'), async (c) => {
    const id = c.req.valid('param').user_id;
    const { db, config } = c.get('deps');
    const [user] = await db.select().from(users).where(eq(users.id, id)).limit(1);
    if (!user || user.deletedAt !== null) return notFound(c);
    const [links, awards] = await Promise.all([
      db
        .select()
        .from(userLinks)
        .where(and(eq(userLinks.userId, id), eq(userLinks.public, true), eq(userLinks.state, 'verified')))
        .orderBy(asc(userLinks.id)),
      db
        .select({ award: badgeAwards, badge: badges })
        .from(badgeAwards)
        .innerJoin(badges, eq(badges.id, badgeAwards.badgeId))
        .where(eq(badgeAwards.userId, id))
        .orderBy(desc(badgeAwards.awardedOn), desc(badgeAwards.id)),
    ]);
    cacheFor(c, 300);
    return c.json({
      user: profileView(config, user, links.filter(isPublicLink), awards.map((a) => ({ ...a.award, badge: a.badge }))),
    });
  });

  return app;
}
