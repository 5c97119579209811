-- A database written by the release at commit 8a98e68 (before Alembic), as SQL.
-- Remade by tests/data/release_database.py postgresql (its docstring says how).

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

CREATE TABLE challenge_games (
    game_id text NOT NULL,
    challenge_id text NOT NULL,
    name text DEFAULT ''::text NOT NULL,
    joined_at double precision NOT NULL,
    player text DEFAULT ''::text NOT NULL,
    counted integer DEFAULT 1 NOT NULL
);

CREATE TABLE challenges (
    id text NOT NULL,
    pegs integer NOT NULL,
    colors integer NOT NULL,
    distinct_ integer NOT NULL,
    max_guesses integer NOT NULL,
    secret text NOT NULL,
    results_key text NOT NULL,
    created_at double precision NOT NULL,
    distinct_guesses integer DEFAULT 0 NOT NULL
);

CREATE TABLE codemaker_games (
    id text NOT NULL,
    pegs integer NOT NULL,
    colors integer NOT NULL,
    distinct_ integer NOT NULL,
    strategy text NOT NULL,
    created_at double precision NOT NULL,
    distinct_guesses integer DEFAULT 0 NOT NULL
);

CREATE TABLE codemaker_replies (
    game_id text NOT NULL,
    move integer NOT NULL,
    guess text NOT NULL,
    black integer NOT NULL,
    white integer NOT NULL
);

CREATE TABLE daily_games (
    player text NOT NULL,
    day integer NOT NULL,
    board text NOT NULL,
    game_id text NOT NULL
);

CREATE TABLE games (
    id text NOT NULL,
    pegs integer NOT NULL,
    colors integer NOT NULL,
    distinct_ integer NOT NULL,
    max_guesses integer NOT NULL,
    secret text NOT NULL,
    status text DEFAULT 'playing'::text NOT NULL,
    show_count integer DEFAULT 0 NOT NULL,
    suggestions integer DEFAULT 0 NOT NULL,
    hint_move integer,
    hint_strategy text,
    created_at double precision NOT NULL,
    hard integer DEFAULT 0 NOT NULL,
    player text,
    distinct_guesses integer DEFAULT 0 NOT NULL
);

CREATE TABLE guesses (
    game_id text NOT NULL,
    move integer NOT NULL,
    guess text NOT NULL,
    black integer NOT NULL,
    white integer NOT NULL,
    at double precision NOT NULL
);

CREATE TABLE hints (
    game_id text NOT NULL,
    move integer NOT NULL,
    strategy text NOT NULL,
    result text NOT NULL
);

CREATE TABLE job_gate (
    id integer NOT NULL
);

CREATE TABLE jobs (
    key text NOT NULL,
    kind text NOT NULL,
    params text NOT NULL,
    status text NOT NULL,
    progress double precision,
    eta double precision,
    result text,
    error text,
    attempts integer DEFAULT 0 NOT NULL,
    created_at double precision NOT NULL,
    started_at double precision,
    heartbeat double precision NOT NULL,
    finished_at double precision,
    client text
);

CREATE TABLE rate_limits (
    key text NOT NULL,
    hits integer NOT NULL,
    expires double precision NOT NULL
);

CREATE TABLE schema_version (
    version integer NOT NULL
);

CREATE TABLE server_keys (
    name text NOT NULL,
    value text NOT NULL
);

CREATE TABLE watch_links (
    token text NOT NULL,
    game_id text NOT NULL
);

INSERT INTO challenge_games VALUES ('kKeN6ytj0QcC9XpxLeXY5Q', 'TDXyiwFUSAV9OozqlOGvyQ', 'Ada', 1795608279.4762225, 'TjIhPLdNJaeziipYioKraw', 1);
INSERT INTO challenge_games VALUES ('kp2GHskFOlPwz8qq7fGSVQ', 'TDXyiwFUSAV9OozqlOGvyQ', '', 1795608279.5361876, 'TjIhPLdNJaeziipYioKraw', 0);
INSERT INTO challenge_games VALUES ('ZgKWz5sHLLs0y9d09twEyw', 'TDXyiwFUSAV9OozqlOGvyQ', 'Bo', 1795608279.558146, '1k9AGOtH1atbhg4H86ed2w', 1);

INSERT INTO challenges VALUES ('TDXyiwFUSAV9OozqlOGvyQ', 3, 4, 0, 10, '123', 'JfDPymqvIJkcjsAT3TjRvw', 1795608279.464232, 0);

INSERT INTO codemaker_games VALUES ('UBCIIZAT1TruCEE5xF5RWA', 4, 6, 0, 'knuth', 1795608279.5645132, 0);
INSERT INTO codemaker_games VALUES ('u3fFAICHk6RVCqJH72qqNQ', 3, 3, 0, 'knuth', 1795608279.5864215, 0);

INSERT INTO codemaker_replies VALUES ('UBCIIZAT1TruCEE5xF5RWA', 1, '1122', 1, 1);

INSERT INTO daily_games VALUES ('OHzvroQfQO0qREqLXGED0Q', 329, 'classic', 'BRa1CgJ74klDO-esSo2R9g');
INSERT INTO daily_games VALUES ('OHzvroQfQO0qREqLXGED0Q', 329, 'super', 'dEl6j0o658ndgIuaJDXmAg');

INSERT INTO games VALUES ('K1iwwA5zmCgFq0cQ_cl2SQ', 4, 6, 0, 10, '4125', 'playing', 0, 0, NULL, NULL, 1795608279.2088263, 0, NULL, 0);
INSERT INTO games VALUES ('JC1c_JtrR02mts5-_-4SWQ', 2, 3, 0, 1, '21', 'lost', 0, 0, NULL, NULL, 1795608279.3726776, 0, NULL, 0);
INSERT INTO games VALUES ('CbI2FWrdCAW9D-0N3Zh3yw', 3, 5, 1, 10, '512', 'playing', 1, 1, 2, 'knuth', 1795608279.406616, 1, NULL, 0);
INSERT INTO games VALUES ('kKeN6ytj0QcC9XpxLeXY5Q', 3, 4, 0, 10, '123', 'won', 0, 0, NULL, NULL, 1795608279.4758377, 0, 'TjIhPLdNJaeziipYioKraw', 0);
INSERT INTO games VALUES ('kp2GHskFOlPwz8qq7fGSVQ', 3, 4, 0, 10, '123', 'playing', 0, 0, NULL, NULL, 1795608279.5357263, 0, 'TjIhPLdNJaeziipYioKraw', 0);
INSERT INTO games VALUES ('ZgKWz5sHLLs0y9d09twEyw', 3, 4, 0, 10, '123', 'playing', 0, 0, NULL, NULL, 1795608279.5546727, 0, '1k9AGOtH1atbhg4H86ed2w', 0);
INSERT INTO games VALUES ('BRa1CgJ74klDO-esSo2R9g', 4, 6, 0, 10, '2622', 'lost', 0, 0, NULL, NULL, 1795608279.5956874, 0, 'OHzvroQfQO0qREqLXGED0Q', 0);
INSERT INTO games VALUES ('dEl6j0o658ndgIuaJDXmAg', 5, 8, 0, 12, '81817', 'playing', 0, 0, NULL, NULL, 1795608279.644792, 0, 'OHzvroQfQO0qREqLXGED0Q', 0);

INSERT INTO guesses VALUES ('K1iwwA5zmCgFq0cQ_cl2SQ', 1, '1122', 2, 0, 1795608279.338516);
INSERT INTO guesses VALUES ('K1iwwA5zmCgFq0cQ_cl2SQ', 2, '3456', 0, 2, 1795608279.3552084);
INSERT INTO guesses VALUES ('JC1c_JtrR02mts5-_-4SWQ', 1, '11', 1, 0, 1795608279.3907647);
INSERT INTO guesses VALUES ('CbI2FWrdCAW9D-0N3Zh3yw', 1, '123', 0, 2, 1795608279.4364982);
INSERT INTO guesses VALUES ('kKeN6ytj0QcC9XpxLeXY5Q', 1, '124', 2, 0, 1795608279.491889);
INSERT INTO guesses VALUES ('kKeN6ytj0QcC9XpxLeXY5Q', 2, '123', 3, 0, 1795608279.5207255);
INSERT INTO guesses VALUES ('kp2GHskFOlPwz8qq7fGSVQ', 1, '111', 1, 0, 1795608279.548168);
INSERT INTO guesses VALUES ('BRa1CgJ74klDO-esSo2R9g', 1, '1122', 2, 0, 1795608279.60127);
INSERT INTO guesses VALUES ('BRa1CgJ74klDO-esSo2R9g', 2, '3344', 0, 0, 1795608279.604716);
INSERT INTO guesses VALUES ('BRa1CgJ74klDO-esSo2R9g', 3, '5566', 0, 1, 1795608279.6149461);
INSERT INTO guesses VALUES ('BRa1CgJ74klDO-esSo2R9g', 4, '1234', 0, 1, 1795608279.623034);
INSERT INTO guesses VALUES ('BRa1CgJ74klDO-esSo2R9g', 5, '2345', 1, 0, 1795608279.6267204);
INSERT INTO guesses VALUES ('BRa1CgJ74klDO-esSo2R9g', 6, '3456', 0, 1, 1795608279.6309571);
INSERT INTO guesses VALUES ('BRa1CgJ74klDO-esSo2R9g', 7, '4561', 0, 1, 1795608279.6336713);
INSERT INTO guesses VALUES ('BRa1CgJ74klDO-esSo2R9g', 8, '5612', 2, 0, 1795608279.636493);
INSERT INTO guesses VALUES ('BRa1CgJ74klDO-esSo2R9g', 9, '6123', 1, 1, 1795608279.639233);
INSERT INTO guesses VALUES ('BRa1CgJ74klDO-esSo2R9g', 10, '1111', 0, 0, 1795608279.6419945);

INSERT INTO hints VALUES ('CbI2FWrdCAW9D-0N3Zh3yw', 2, 'knuth', '{"guess": "214", "remaining": 18, "score": {"largest class": 4}, "partition": {"0,1": 4, "0,2": 4, "1,0": 2, "1,1": 2, "1,2": 2, "2,0": 3, "3,0": 1}, "ms": 0.9534569999800624}');

INSERT INTO job_gate VALUES (1);

INSERT INTO jobs VALUES ('review:{"colors":6,"distinct":false,"distinct_guesses":false,"guesses":["1122","3344","5566","1234","2345","3456","4561","5612","6123","1111"],"pegs":4,"secret":"2622"}', 'review', '{"colors": 6, "distinct": false, "distinct_guesses": false, "guesses": ["1122", "3344", "5566", "1234", "2345", "3456", "4561", "5612", "6123", "1111"], "pegs": 4, "secret": "2622"}', 'queued', NULL, NULL, NULL, NULL, 0, 1795608279.6498182, NULL, 1795608279.6498182, NULL, '127.0.0.1');
INSERT INTO jobs VALUES ('review-move:{"colors":4,"distinct":false,"distinct_guesses":false,"guess":"124","history":[],"pegs":3}', 'review-move', '{"colors": 4, "distinct": false, "distinct_guesses": false, "guess": "124", "history": [], "pegs": 3}', 'done', 1, NULL, '{"move": 1, "guess": "124", "black": 2, "white": 0, "candidates": 64, "expected": 3.25, "best_expected": 3.21875, "best_guess": "112", "rating": "excellent", "luck": 75, "exact": true, "known": false, "expected_total": 208.0, "best_total": 206.0}', NULL, 0, 1795608279.6652877, NULL, 1795608279.6652877, 1795608279.6652877, NULL);
INSERT INTO jobs VALUES ('review-move:{"colors":4,"distinct":false,"distinct_guesses":false,"guess":"123","history":[["124",2,0]],"pegs":3}', 'review-move', '{"colors": 4, "distinct": false, "distinct_guesses": false, "guess": "123", "history": [["124", 2, 0]], "pegs": 3}', 'done', 1, NULL, '{"move": 2, "guess": "123", "black": 3, "white": 0, "candidates": 9, "expected": 2.444444, "best_expected": 2.333333, "best_guess": "132", "rating": "good", "luck": 94, "exact": true, "known": false, "expected_total": 22.0, "best_total": 21.0}', NULL, 0, 1795608279.6685224, NULL, 1795608279.6685224, 1795608279.6685224, NULL);
INSERT INTO jobs VALUES ('review:{"colors":4,"distinct":false,"distinct_guesses":false,"guesses":["124","123"],"pegs":3,"secret":"123"}', 'review', '{"pegs": 3, "colors": 4, "distinct": false, "distinct_guesses": false, "secret": "123", "guesses": ["124", "123"]}', 'done', 1, NULL, '{"exact": true, "method": null, "skill": 93, "luck": 84, "guesses": 2, "won": true, "expected_guesses": 3.3611, "optimal_expected_guesses": 3.2188, "knuth": ["123"], "moves": [{"move": 1, "guess": "124", "black": 2, "white": 0, "candidates": 64, "expected": 3.25, "best_expected": 3.21875, "best_guess": "112", "rating": "excellent", "luck": 75, "exact": true, "known": false}, {"move": 2, "guess": "123", "black": 3, "white": 0, "candidates": 9, "expected": 2.444444, "best_expected": 2.333333, "best_guess": "132", "rating": "good", "luck": 94, "exact": true, "known": false}]}', NULL, 0, 1795608279.669272, NULL, 1795608279.669272, 1795608279.669272, NULL);
INSERT INTO jobs VALUES ('compare:{"colors":3,"distinct":false,"distinct_guesses":false,"pegs":3}', 'compare', '{"pegs": 3, "colors": 3, "distinct": false, "distinct_guesses": false}', 'done', 1, NULL, '{"rows": [{"strategy": "simple", "total": 89, "mean": 3.296296, "stddev": 0.89504, "max": 5, "first_guess": "111", "histogram": {"1": 1, "2": 3, "3": 12, "4": 9, "5": 2}}, {"strategy": "random", "total": 75, "mean": 2.777778, "stddev": 0.684935, "max": 4, "first_guess": "322", "histogram": {"1": 1, "2": 7, "3": 16, "4": 3}}, {"strategy": "knuth", "total": 74, "mean": 2.740741, "stddev": 0.643635, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 17, "4": 2}}, {"strategy": "minimax-lex", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "entropy", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "irving", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "most-parts", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "widedev", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "longrect", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "minimax-avg", "total": 76, "mean": 2.814815, "stddev": 0.546845, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 4, "3": 21, "4": 1}}, {"strategy": "optimal", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "optimal-5", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}, {"strategy": "best", "total": 73, "mean": 2.703704, "stddev": 0.597204, "max": 4, "first_guess": "112", "histogram": {"1": 1, "2": 7, "3": 18, "4": 1}}], "skipped": []}', NULL, 0, 1795608279.7086048, NULL, 1795608279.7086048, 1795608279.7086048, NULL);

INSERT INTO rate_limits VALUES ('LIMITER/127.0.0.1/create/1000/1/minute', 11, 1795608339.1716611);
INSERT INTO rate_limits VALUES ('LIMITER/job-start/127.0.0.1/20/1/minute', 1, 1795608339.6539466);
INSERT INTO rate_limits VALUES ('LIMITER/job-start/127.0.0.1/200/1/hour', 1, 1795611879.654192);

INSERT INTO schema_version VALUES (1);
INSERT INTO schema_version VALUES (2);
INSERT INTO schema_version VALUES (3);
INSERT INTO schema_version VALUES (4);
INSERT INTO schema_version VALUES (5);
INSERT INTO schema_version VALUES (6);
INSERT INTO schema_version VALUES (7);

INSERT INTO server_keys VALUES ('daily', '843a1699809b1436fb238c2ac0c7b078245100bfe727184e44e838e8634ea85b');

INSERT INTO watch_links VALUES ('anu92fbQfvBvOOV3YFRnWA', 'K1iwwA5zmCgFq0cQ_cl2SQ');
INSERT INTO watch_links VALUES ('Okpms0j1FpFoixsBRfLlzw', 'JC1c_JtrR02mts5-_-4SWQ');
INSERT INTO watch_links VALUES ('Z7TPUl1HbsrXQM2uyhjEtg', 'CbI2FWrdCAW9D-0N3Zh3yw');
INSERT INTO watch_links VALUES ('kheSjCvUh63eWsSoIFypSw', 'kKeN6ytj0QcC9XpxLeXY5Q');
INSERT INTO watch_links VALUES ('AMfqye3CM67pmd2u_akC3g', 'kp2GHskFOlPwz8qq7fGSVQ');
INSERT INTO watch_links VALUES ('1HYKUq5FmR8nHh98G9WmcA', 'ZgKWz5sHLLs0y9d09twEyw');
INSERT INTO watch_links VALUES ('naa99bFfD9qFtGo3N4JCGg', 'BRa1CgJ74klDO-esSo2R9g');
INSERT INTO watch_links VALUES ('mom2IVPSLk-H8xyyC9wYQw', 'dEl6j0o658ndgIuaJDXmAg');

ALTER TABLE ONLY challenge_games
    ADD CONSTRAINT challenge_games_pkey PRIMARY KEY (game_id);

ALTER TABLE ONLY challenges
    ADD CONSTRAINT challenges_pkey PRIMARY KEY (id);

ALTER TABLE ONLY codemaker_games
    ADD CONSTRAINT codemaker_games_pkey PRIMARY KEY (id);

ALTER TABLE ONLY codemaker_replies
    ADD CONSTRAINT codemaker_replies_pkey PRIMARY KEY (game_id, move);

ALTER TABLE ONLY daily_games
    ADD CONSTRAINT daily_games_game_id_key UNIQUE (game_id);

ALTER TABLE ONLY daily_games
    ADD CONSTRAINT daily_games_pkey PRIMARY KEY (player, day, board);

ALTER TABLE ONLY games
    ADD CONSTRAINT games_pkey PRIMARY KEY (id);

ALTER TABLE ONLY guesses
    ADD CONSTRAINT guesses_pkey PRIMARY KEY (game_id, move);

ALTER TABLE ONLY hints
    ADD CONSTRAINT hints_pkey PRIMARY KEY (game_id, move, strategy);

ALTER TABLE ONLY job_gate
    ADD CONSTRAINT job_gate_pkey PRIMARY KEY (id);

ALTER TABLE ONLY jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (key);

ALTER TABLE ONLY rate_limits
    ADD CONSTRAINT rate_limits_pkey PRIMARY KEY (key);

ALTER TABLE ONLY server_keys
    ADD CONSTRAINT server_keys_pkey PRIMARY KEY (name);

ALTER TABLE ONLY watch_links
    ADD CONSTRAINT watch_links_game_id_key UNIQUE (game_id);

ALTER TABLE ONLY watch_links
    ADD CONSTRAINT watch_links_pkey PRIMARY KEY (token);

CREATE INDEX challenge_games_by_challenge ON challenge_games USING btree (challenge_id, joined_at);

CREATE INDEX challenge_games_by_player ON challenge_games USING btree (challenge_id, player);

CREATE INDEX games_by_player ON games USING btree (player);

ALTER TABLE ONLY challenge_games
    ADD CONSTRAINT challenge_games_challenge_id_fkey FOREIGN KEY (challenge_id) REFERENCES challenges(id);

ALTER TABLE ONLY challenge_games
    ADD CONSTRAINT challenge_games_game_id_fkey FOREIGN KEY (game_id) REFERENCES games(id);

ALTER TABLE ONLY codemaker_replies
    ADD CONSTRAINT codemaker_replies_game_id_fkey FOREIGN KEY (game_id) REFERENCES codemaker_games(id);

ALTER TABLE ONLY daily_games
    ADD CONSTRAINT daily_games_game_id_fkey FOREIGN KEY (game_id) REFERENCES games(id);

ALTER TABLE ONLY guesses
    ADD CONSTRAINT guesses_game_id_fkey FOREIGN KEY (game_id) REFERENCES games(id);

ALTER TABLE ONLY hints
    ADD CONSTRAINT hints_game_id_fkey FOREIGN KEY (game_id) REFERENCES games(id);

ALTER TABLE ONLY watch_links
    ADD CONSTRAINT watch_links_game_id_fkey FOREIGN KEY (game_id) REFERENCES games(id);

