import { sql, type Migration } from './types.js';

/**
 * Every change to what authenticates a caller (user row, session, workspace or project
 * membership) announces the user id on the `auth_changed` channel when it commits, so each
 * server process evicts that user's cached sessions (server/domains/auth/session-cache.ts).
 * Triggers rather than calls in the services: direct SQL and other processes are covered too.
 */
export const m0008: Migration = {
  name: '0008-auth-change-notify',
  up: sql(`
    -- TG_ARGV[0] names the column holding the user id
    CREATE FUNCTION notify_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      old_user text := CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) ->> TG_ARGV[0] END;
      new_user text := CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) ->> TG_ARGV[0] END;
    BEGIN
      IF old_user IS NOT NULL THEN PERFORM pg_notify('auth_changed', old_user); END IF;
      IF new_user IS NOT NULL AND new_user IS DISTINCT FROM old_user THEN PERFORM pg_notify('auth_changed', new_user); END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER users_auth_changed AFTER UPDATE OR DELETE ON users
      FOR EACH ROW EXECUTE FUNCTION notify_auth_changed('id');
    CREATE TRIGGER sessions_auth_changed AFTER UPDATE OR DELETE ON sessions
      FOR EACH ROW EXECUTE FUNCTION notify_auth_changed('user_id');
    CREATE TRIGGER workspace_members_auth_changed AFTER INSERT OR UPDATE OR DELETE ON workspace_members
      FOR EACH ROW EXECUTE FUNCTION notify_auth_changed('user_id');
    CREATE TRIGGER project_members_auth_changed AFTER INSERT OR UPDATE OR DELETE ON project_members
      FOR EACH ROW EXECUTE FUNCTION notify_auth_changed('user_id');
  `),
  down: sql(`
    DROP TRIGGER project_members_auth_changed ON project_members;
    DROP TRIGGER workspace_members_auth_changed ON workspace_members;
    DROP TRIGGER sessions_auth_changed ON sessions;
    DROP TRIGGER users_auth_changed ON users;
    DROP FUNCTION notify_auth_changed();
  `),
};
