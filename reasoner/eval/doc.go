// Package eval is Grove's experiment runner: it answers a dataset's
// questions with one or more reasoning methods and records, per question
// and method, the answer, the gold answers, the scores, the cost (tokens
// spent, model calls, samples, samples from the cache with the tokens they
// cost when produced and their origins, KG calls, wall time) and the full
// trace. The summary and the manifest total the response cache's part
// (CacheUse) and warn of samples another server produced under the same
// model name.
//
// # Runs
//
// Run loads the questions (package dataset), optionally samples them as
// the Tree-of-Traversals paper does (the first N after Python's
// random.Random(233).shuffle), drops questions without a gold answer,
// resolves missing answer labels through the KG, and keeps the questions
// of the requested shard (positions p with p mod n == i-1 for shard i/n).
// Every method is built once from the registry (method specs such as
// "tot->cot" add the paper's Chain-of-Thought fallback, see
// reasoner.Registry.Build) and (question, method) jobs run on a pool of workers.
//
// With Config.TopicEntities the methods get each question's topic entities,
// and those the run's graphs (Config.Graphs; all when empty) lack are
// recorded (Result.MissingTopics). A Freebase set that also gives Wikidata
// ids (dataset.Question.WikidataTopicEntities) is asked with them instead
// when the run's graphs have more of them than of its MIDs: one choice per
// run, made over the whole sample so that every shard makes the same one,
// and recorded (Manifest.TopicIDs), so a Freebase KG is never given, nor
// reported missing, Wikidata ids, and Merge refuses shards that chose
// differently.
//
// # Output and resumption
//
// The output directory holds
//
//	run.json        the manifest: dataset, sampling, shard, graphs,
//	                methods, parameters, a hash of the question ids and,
//	                when the run ends, the response cache's part
//	results.jsonl   one Result per line
//	traces/<method>/<id>-<hash>.json.gz
//
// (a shard writes run.shard-i-of-n.json and results.shard-i-of-n.jsonl,
// so shards may share a directory). A finished job first writes its trace
// atomically (temporary file, sync, rename), then appends its result line
// and syncs the file, under one lock. A crash or a Ctrl-C therefore loses
// only the jobs in flight; at worst the last line is torn. A run locks its
// results file while it runs, so a second run into the same place fails
// (ErrRunInUse) instead of appending to it. Resuming reads
// the results file, cuts a torn last line, checks the manifest (a changed
// question set, graph list, choice of topic-entity ids, store, model,
// judge or parameter set is
// refused, new methods are allowed) and skips every (method, question id) already recorded; with
// RetryErrors, jobs that ended in an error run again and their new record
// supersedes the old one. Cancelled jobs are never recorded, so nothing is
// lost or duplicated. Merge combines shard directories into one.
//
// # Scores
//
// Score computes EM-in (the paper's metric), EM, F1 and Rouge-L on the
// answer text and Hits@1 on the answer's entities when the dataset has
// gold ids; an optional metric.Judge adds the LLM-judge score. Package
// report turns results and traces into tables and figures.
package eval
