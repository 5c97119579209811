-- A database written by the release at commit 8a98e68 (before Alembic), as SQL.
-- Remade by tests/data/release_database.py sqlite (its docstring says how).
BEGIN TRANSACTION;
CREATE TABLE challenge_games (
    game_id      TEXT PRIMARY KEY REFERENCES games(id),
    challenge_id TEXT NOT NULL REFERENCES challenges(id),
    name         TEXT NOT NULL DEFAULT '',
    joined_at    REAL NOT NULL
, player TEXT NOT NULL DEFAULT '', counted INTEGER NOT NULL DEFAULT 1);
INSERT INTO "challenge_games" VALUES('nXtR9biWKr_GYwlEw-GnIA','aSeoPnpOcLd2fcSXLzBN8Q','Ada',1.79560826855732178688e+09,'tpqyfT6nHV4mKUyDKkD2Sg',1);
INSERT INTO "challenge_games" VALUES('Q-BkG6YiGCafR_-IGH0NFw','aSeoPnpOcLd2fcSXLzBN8Q','',1.79560826857701921459e+09,'tpqyfT6nHV4mKUyDKkD2Sg',0);
INSERT INTO "challenge_games" VALUES('X48dgKnNVNCNjWjrWdpONg','aSeoPnpOcLd2fcSXLzBN8Q','Bo',1.79560826858762359612e+09,'E6inzXGAi1ieYcb7GMnw5g',1);
CREATE TABLE challenges (
    id          TEXT PRIMARY KEY,
    pegs        INTEGER NOT NULL,
    colors      INTEGER NOT NULL,
    distinct_   INTEGER NOT NULL,
    max_guesses INTEGER NOT NULL,
    secret      TEXT NOT NULL,
    results_key TEXT NOT NULL,
    created_at  REAL NOT NULL
, distinct_guesses INTEGER NOT NULL DEFAULT 0);
INSERT INTO "challenges" VALUES('aSeoPnpOcLd2fcSXLzBN8Q',3,4,0,10,'123','RAflNE3MXRYzpzMlaQBrJA',1.7956082685517990589e+09,0);
CREATE TABLE codemaker_games (
    id         TEXT PRIMARY KEY,
    pegs       INTEGER NOT NULL,
    colors     INTEGER NOT NULL,
    distinct_  INTEGER NOT NULL,
    strategy   TEXT NOT NULL,
    created_at REAL NOT NULL
, distinct_guesses INTEGER NOT NULL DEFAULT 0);
INSERT INTO "codemaker_games" VALUES('jvCW-N3vXa03-D7oQy-yRw',4,6,0,'knuth',1.79560826860434770589e+09,0);
INSERT INTO "codemaker_games" VALUES('jxksi_W3ZLDbH1ZUY--Fmg',3,3,0,'knuth',1.79560826861378049854e+09,0);
CREATE TABLE codemaker_replies (
    game_id TEXT NOT NULL REFERENCES codemaker_games(id),
    move    INTEGER NOT NULL,
    guess   TEXT NOT NULL,
    black   INTEGER NOT NULL,
    white   INTEGER NOT NULL,
    PRIMARY KEY (game_id, move)
);
INSERT INTO "codemaker_replies" VALUES('jvCW-N3vXa03-D7oQy-yRw',1,'1122',1,1);
CREATE TABLE daily_games (
    player  TEXT NOT NULL,
    day     INTEGER NOT NULL,
    board   TEXT NOT NULL,
    game_id TEXT NOT NULL UNIQUE REFERENCES games(id),
    PRIMARY KEY (player, day, board)
);
INSERT INTO "daily_games" VALUES('ZutY8toraD4U5nirMPBRyw',329,'classic','tXini2V6_FCowbSDZtVcjQ');
INSERT INTO "daily_games" VALUES('ZutY8toraD4U5nirMPBRyw',329,'super','OgiYPVLa4HAIBfjSm5Lbpw');
CREATE TABLE games (
    id          TEXT PRIMARY KEY,
    pegs        INTEGER NOT NULL,
    colors      INTEGER NOT NULL,
    distinct_   INTEGER NOT NULL,
    max_guesses INTEGER NOT NULL,
    secret      TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'playing',
    show_count  INTEGER NOT NULL DEFAULT 0,
    suggestions INTEGER NOT NULL DEFAULT 0,
    hint_move   INTEGER,
    hint_strategy TEXT,
    created_at  REAL NOT NULL
, hard INTEGER NOT NULL DEFAULT 0, player TEXT, distinct_guesses INTEGER NOT NULL DEFAULT 0);
INSERT INTO "games" VALUES('NYxolwYWk8FBQMOXCuc3RA',4,6,0,10,'2351','playing',0,0,NULL,NULL,1.79560826850412106519e+09,0,NULL,0);
INSERT INTO "games" VALUES('YS5SwlmY_zVWJSFU5gworA',2,3,0,1,'23','lost',0,0,NULL,NULL,1.79560826851901936531e+09,0,NULL,0);
INSERT INTO "games" VALUES('p8oa-fFa796Ts4z4iQXMIw',3,5,1,10,'315','playing',1,1,2,'knuth',1.79560826852986621859e+09,1,NULL,0);
INSERT INTO "games" VALUES('nXtR9biWKr_GYwlEw-GnIA',3,4,0,10,'123','won',0,0,NULL,NULL,1.79560826855605554577e+09,0,'tpqyfT6nHV4mKUyDKkD2Sg',0);
INSERT INTO "games" VALUES('Q-BkG6YiGCafR_-IGH0NFw',3,4,0,10,'123','playing',0,0,NULL,NULL,1.79560826857697486882e+09,0,'tpqyfT6nHV4mKUyDKkD2Sg',0);
INSERT INTO "games" VALUES('X48dgKnNVNCNjWjrWdpONg',3,4,0,10,'123','playing',0,0,NULL,NULL,1.79560826858741545675e+09,0,'E6inzXGAi1ieYcb7GMnw5g',0);
INSERT INTO "games" VALUES('tXini2V6_FCowbSDZtVcjQ',4,6,0,10,'3144','lost',0,0,NULL,NULL,1.79560826868952441216e+09,0,'ZutY8toraD4U5nirMPBRyw',0);
INSERT INTO "games" VALUES('OgiYPVLa4HAIBfjSm5Lbpw',5,8,0,12,'16152','playing',0,0,NULL,NULL,1.79560826873452496522e+09,0,'ZutY8toraD4U5nirMPBRyw',0);
CREATE TABLE guesses (
    game_id TEXT NOT NULL REFERENCES games(id),
    move    INTEGER NOT NULL,
    guess   TEXT NOT NULL,
    black   INTEGER NOT NULL,
    white   INTEGER NOT NULL,
    at      REAL NOT NULL,
    PRIMARY KEY (game_id, move)
);
INSERT INTO "guesses" VALUES('NYxolwYWk8FBQMOXCuc3RA',1,'1122',0,2,1.79560826850792479517e+09);
INSERT INTO "guesses" VALUES('NYxolwYWk8FBQMOXCuc3RA',2,'3456',1,1,1795608268.51274);
INSERT INTO "guesses" VALUES('YS5SwlmY_zVWJSFU5gworA',1,'11',0,0,1.7956082685238771439e+09);
INSERT INTO "guesses" VALUES('p8oa-fFa796Ts4z4iQXMIw',1,'123',0,2,1.79560826853763723376e+09);
INSERT INTO "guesses" VALUES('nXtR9biWKr_GYwlEw-GnIA',1,'124',2,0,1.79560826856543231011e+09);
INSERT INTO "guesses" VALUES('nXtR9biWKr_GYwlEw-GnIA',2,'123',3,0,1.79560826857223176955e+09);
INSERT INTO "guesses" VALUES('Q-BkG6YiGCafR_-IGH0NFw',1,'111',1,0,1.79560826858061361316e+09);
INSERT INTO "guesses" VALUES('tXini2V6_FCowbSDZtVcjQ',1,'1122',1,0,1795608268.69989);
INSERT INTO "guesses" VALUES('tXini2V6_FCowbSDZtVcjQ',2,'3344',3,0,1795608268.70368);
INSERT INTO "guesses" VALUES('tXini2V6_FCowbSDZtVcjQ',3,'5566',0,0,1.79560826870726633064e+09);
INSERT INTO "guesses" VALUES('tXini2V6_FCowbSDZtVcjQ',4,'1234',1,2,1.79560826871077704432e+09);
INSERT INTO "guesses" VALUES('tXini2V6_FCowbSDZtVcjQ',5,'2345',1,1,1.79560826871413779263e+09);
INSERT INTO "guesses" VALUES('tXini2V6_FCowbSDZtVcjQ',6,'3456',1,1,1.79560826871748614305e+09);
INSERT INTO "guesses" VALUES('tXini2V6_FCowbSDZtVcjQ',7,'4561',0,2,1.79560826872089743613e+09);
INSERT INTO "guesses" VALUES('tXini2V6_FCowbSDZtVcjQ',8,'5612',0,1,1.79560826872432017327e+09);
INSERT INTO "guesses" VALUES('tXini2V6_FCowbSDZtVcjQ',9,'6123',1,1,1.79560826872780370713e+09);
INSERT INTO "guesses" VALUES('tXini2V6_FCowbSDZtVcjQ',10,'1111',1,0,1.79560826873141527173e+09);
CREATE TABLE hints (
    game_id  TEXT NOT NULL REFERENCES games(id),
    move     INTEGER NOT NULL,
    strategy TEXT NOT NULL,
    result   TEXT NOT NULL,
    PRIMARY KEY (game_id, move, strategy)
);
INSERT INTO "hints" VALUES('p8oa-fFa796Ts4z4iQXMIw',2,'knuth','{"guess": "214", "remaining": 18, "score": {"largest class": 4}, "partition": {"0,1": 4, "0,2": 4, "1,0": 2, "1,1": 2, "1,2": 2, "2,0": 3, "3,0": 1}, "ms": 0.8690310000076806}');
CREATE TABLE job_gate (
    id INTEGER PRIMARY KEY
);
INSERT INTO "job_gate" VALUES(1);
CREATE TABLE jobs (
    key         TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    params      TEXT NOT NULL,
    status      TEXT NOT NULL,
    progress    REAL,
    eta         REAL,
    result      TEXT,
    error       TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    created_at  REAL NOT NULL,
    started_at  REAL,
    heartbeat   REAL NOT NULL,
    finished_at REAL
, client TEXT);
INSERT INTO "jobs" VALUES('review:{"colors":6,"distinct":false,"distinct_guesses":false,"guesses":["1122","3344","5566","1234","2345","3456","4561","5612","6123","1111"],"pegs":4,"secret":"3144"}','review','{"colors": 6, "distinct": false, "distinct_guesses": false, "guesses": ["1122", "3344", "5566", "1234", "2345", "3456", "4561", "5612", "6123", "1111"], "pegs": 4, "secret": "3144"}','queued',NULL,NULL,NULL,NULL,0,1.79560826873693799975e+09,NULL,1.79560826873693799975e+09,NULL,'127.0.0.1');
INSERT INTO "jobs" VALUES('review-move:{"colors":4,"distinct":false,"distinct_guesses":false,"guess":"124","history":[],"pegs":3}','review-move','{"colors": 4, "distinct": false, "distinct_guesses": false, "guess": "124", "history": [], "pegs": 3}','done',1.0,NULL,'{"move": 1, "guess": "124", "black": 2, "white": 0, "candidates": 64, "expected": 3.25, "best_expected": 3.21875, "best_guess": "112", "rating": "excellent", "luck": 75, "exact": true, "known": false, "expected_total": 208.0, "best_total": 206.0}',NULL,0,1.79560826874775671959e+09,NULL,1.79560826874775671959e+09,1.79560826874775671959e+09,NULL);
INSERT INTO "jobs" VALUES('review-move:{"colors":4,"distinct":false,"distinct_guesses":false,"guess":"123","history":[["124",2,0]],"pegs":3}','review-move','{"colors": 4, "distinct": false, "distinct_guesses": false, "guess": "123", "history": [["124", 2, 0]], "pegs": 3}','done',1.0,NULL,'{"move": 2, "guess": "123", "black": 3, "white": 0, "candidates": 9, "expected": 2.444444, "best_expected": 2.333333, "best_guess": "132", "rating": "good", "luck": 94, "exact": true, "known": false, "expected_total": 22.0, "best_total": 21.0}',NULL,0,1.79560826875071096421e+09,NULL,1.79560826875071096421e+09,1.79560826875071096421e+09,NULL);
INSERT INTO "jobs" VALUES('review:{"colors":4,"distinct":false,"distinct_guesses":false,"guesses":["124","123"],"pegs":3,"secret":"123"}','review','{"pegs": 3, "colors": 4, "distinct": false, "distinct_guesses": false, "secret": "123", "guesses": ["124", "123"]}','done',1.0,NULL,'{"exact": true, "method": null, "skill": 93, "luck": 84, "guesses": 2, "won": true, "expected_guesses": 3.3611, "optimal_expected_guesses": 3.2188, "knuth": ["123"], "moves": [{"move": 1, "guess": "124", "black": 2, "white": 0, "candidates": 64, "expected": 3.25, "best_expected": 3.21875, "best_guess": "112", "rating": "excellent", "luck": 75, "exact": true, "known": false}, {"move": 2, "guess": "123", "black": 3, "white": 0, "candidates": 9, "expected": 2.444444, "best_expected": 2.333333, "best_guess": "132", "rating": "good", "luck": 94, "exact": true, "known": false}]}',NULL,0,1.79560826875144171708e+09,NULL,1.79560826875144171708e+09,1.79560826875144171708e+09,NULL);
INSERT INTO "jobs" VALUES('compare:{"colors":3,"distinct":false,"distinct_guesses":false,"pegs":3}','compare','{"pegs": 3, "colors": 3, "distinct": false, "distinct_guesses": false}','done',1.0,NULL,'{"rows": [{"strategy": "simple", "total": 89, "mean": 3.296296, "stddev": 0.89504, "max": 5, "first_guess": "111", "histogram": {"1": 1, "2": 3, "3": 12, "4": 9, "5": 2}}, {"strategy": "random", "total": 75, "mean": 2.777778, "stddev": 0.684935, "max": 4, "first_guess": "322", "histogram": {"1": 1, "2": 7, "3": 16, "4": 3}}, {"strategy": "knuth", "total": 74, "mean": 2.740741, "stddev": 0.643635, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 17, "4": 2}}, {"strategy": "minimax-lex", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "entropy", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "irving", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "most-parts", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "widedev", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "longrect", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "minimax-avg", "total": 76, "mean": 2.814815, "stddev": 0.546845, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 4, "3": 21, "4": 1}}, {"strategy": "optimal", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "optimal-5", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "best", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}], "skipped": []}',NULL,0,1.79560826878766489032e+09,NULL,1.79560826878766489032e+09,1.79560826878766489032e+09,NULL);
CREATE TABLE rate_limits (
    key     TEXT PRIMARY KEY,
    hits    INTEGER NOT NULL,
    expires REAL NOT NULL
);
INSERT INTO "rate_limits" VALUES('LIMITER/127.0.0.1/create/1000/1/minute',11,1.79560832849512457846e+09);
INSERT INTO "rate_limits" VALUES('LIMITER/job-start/127.0.0.1/20/1/minute',1,1.7956083287389149666e+09);
INSERT INTO "rate_limits" VALUES('LIMITER/job-start/127.0.0.1/200/1/hour',1,1.79561186873923850056e+09);
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO "schema_version" VALUES(1);
INSERT INTO "schema_version" VALUES(2);
INSERT INTO "schema_version" VALUES(3);
INSERT INTO "schema_version" VALUES(4);
INSERT INTO "schema_version" VALUES(5);
INSERT INTO "schema_version" VALUES(6);
INSERT INTO "schema_version" VALUES(7);
CREATE TABLE server_keys (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO "server_keys" VALUES('daily','1f9f42facf002e2301b3bf07c70faf9faf5e623ccbc92fdf78ba3944519f5ba8');
CREATE TABLE watch_links (
    token   TEXT PRIMARY KEY,
    game_id TEXT NOT NULL UNIQUE REFERENCES games(id)
);
INSERT INTO "watch_links" VALUES('7bQ6jnWfiTSUcpdLNZSaXg','NYxolwYWk8FBQMOXCuc3RA');
INSERT INTO "watch_links" VALUES('8O2SkeSeEiCw2SDK_GiKlw','YS5SwlmY_zVWJSFU5gworA');
INSERT INTO "watch_links" VALUES('4wUl891IGPTSpfTFhE8oLA','p8oa-fFa796Ts4z4iQXMIw');
INSERT INTO "watch_links" VALUES('oGImqcb8-W4uLOGezjuirA','nXtR9biWKr_GYwlEw-GnIA');
INSERT INTO "watch_links" VALUES('tx0p5tW6fvsFk0LzlqQHeg','Q-BkG6YiGCafR_-IGH0NFw');
INSERT INTO "watch_links" VALUES('8XREhN89Qmk0NJnGE_VKdw','X48dgKnNVNCNjWjrWdpONg');
INSERT INTO "watch_links" VALUES('8xAywDid1S1BOvvs9CviNw','tXini2V6_FCowbSDZtVcjQ');
INSERT INTO "watch_links" VALUES('tU9Q65CsjjDLCKqjHPk6tA','OgiYPVLa4HAIBfjSm5Lbpw');
CREATE INDEX challenge_games_by_challenge ON challenge_games (challenge_id, joined_at);
CREATE INDEX challenge_games_by_player ON challenge_games (challenge_id, player);
CREATE INDEX games_by_player ON games (player);
COMMIT;
