import pg from 'pg';

/**
 * Bulk data (names from 60 first names and 40 surnames, so a name prefix is as selective as in a real site) with generate_series, straight into the migrated schema: `groupCount` groups in a tree
 * (buildings of entrances of floors under the root) and `userCount` users spread over them.
 */
export async function seedUsers(
  url: string,
  opts: { projectId: number; rootGroupId: number; roleId: number; groupCount: number; userCount: number },
) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { projectId, rootGroupId, roleId, groupCount, userCount } = opts;
  const buildings = Math.max(1, Math.round(groupCount / 111));
  await c.query('BEGIN');
  // Level 1: buildings under the root; level 2: 10 entrances each; level 3: 10 floors each (1 + 10 + 100 = 111 per building).
  await c.query(
    `INSERT INTO groups (project_id, parent_id, path, name)
     SELECT $1, $2, ARRAY[$2]::int[], 'Building ' || b FROM generate_series(1, $3) b`,
    [projectId, rootGroupId, buildings],
  );
  await c.query(`UPDATE groups SET path = path || id WHERE project_id = $1 AND parent_id = $2 AND id <> $2`, [projectId, rootGroupId]);
  await c.query(
    `INSERT INTO groups (project_id, parent_id, path, name)
     SELECT $1, g.id, g.path, g.name || ' / Entrance ' || e FROM groups g, generate_series(1, 10) e WHERE g.project_id = $1 AND g.parent_id = $2`,
    [projectId, rootGroupId],
  );
  await c.query(`UPDATE groups SET path = path || id WHERE project_id = $1 AND cardinality(path) = 2 AND NOT (id = ANY(path))`, [
    projectId,
  ]);
  await c.query(
    `INSERT INTO groups (project_id, parent_id, path, name)
     SELECT $1, g.id, g.path, g.name || ' / Floor ' || f FROM groups g, generate_series(1, 10) f WHERE g.project_id = $1 AND cardinality(g.path) = 3`,
    [projectId],
  );
  await c.query(`UPDATE groups SET path = path || id WHERE project_id = $1 AND cardinality(path) = 3 AND NOT (id = ANY(path))`, [
    projectId,
  ]);
  await c.query(
    `INSERT INTO users (project_id, login, name, email, role_id, password_hash, created_at)
     SELECT $1, 'user' || i, (ARRAY['Anna','Boris','Vera','Gleb','Daria','Egor','Zoya','Ivan','Olga','Pavel','Irina','Sergei','Elena','Maxim','Nina','Oleg','Maria','Artem','Sofia','Denis','Alla','Roman','Tatiana','Kirill','Yulia','Anton','Polina','Ilya','Ksenia','Timur','Liza','Fedor','Alice','Bruno','Clara','David','Emma','Felix','Greta','Hugo','Ines','Jonas','Karin','Lukas','Mila','Noah','Omar','Paula','Quentin','Rosa','Simon','Tina','Ugo','Valentina','Walter','Xenia','Yann','Zara','Lev','Mark'])[1 + i % 60] || ' ' || (ARRAY['Ivanov','Petrova','Smirnov','Kuznetsova','Popov','Sokolova','Lebedev','Kozlova','Novikov','Morozova','Volkov','Solovyova','Vasiliev','Zaitseva','Pavlov','Semenova','Golubev','Vinogradova','Bogdanov','Vorobyova','Fedorov','Mikhailova','Belyaev','Tarasova','Belov','Komarova','Orlov','Kiseleva','Makarov','Andreeva','Muller','Schmidt','Rossi','Bianchi','Garcia','Lopez','Martin','Bernard','Smith','Jones'])[1 + (i / 60) % 40] || ' ' || i, 'user' || i || '@example.org', $2, NULL, now() - (i || ' minutes')::interval
     FROM generate_series(1, $3) i`,
    [projectId, roleId, userCount],
  );
  // Users go round-robin over the leaf groups (floors): one array lookup per user, no join.
  await c.query(
    `WITH leaves AS (SELECT array_agg(id ORDER BY id) AS ids FROM groups WHERE project_id = $1 AND cardinality(path) = 4)
     INSERT INTO user_groups (user_id, group_id)
     SELECT u.id, l.ids[1 + u.id % cardinality(l.ids)] FROM users u, leaves l WHERE u.project_id = $1 AND u.login LIKE 'user%'`,
    [projectId],
  );
  await c.query('COMMIT');
  // As autovacuum would on a live system: statistics and clean indexes before measuring.
  await c.query('VACUUM ANALYZE');
  const { rows } = await c.query(`SELECT count(*)::int AS groups FROM groups WHERE project_id = $1`, [projectId]);
  await c.end();
  return { groups: rows[0].groups as number };
}
