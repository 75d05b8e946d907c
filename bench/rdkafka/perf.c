/*
 * A minimal librdkafka producer and consumer for the side-by-side
 * benchmarks (bench/producer.sh, bench/consumer.sh): the loop every
 * librdkafka-based tool runs, with nothing else in it.
 *
 *   perf produce BOOTSTRAP TOPIC RECORDS SIZE [key=value ...]
 *   perf consume BOOTSTRAP TOPIC RECORDS [key=value ...]
 *
 * key=value pairs are librdkafka configuration properties (acks,
 * batch.size, linger.ms, compression.type, enable.idempotence ...).
 * Prints one line: "RECORDS records, SECONDS s, RATE records/s".
 *
 * Built by the scripts: cc -O2 -o perf perf.c -lrdkafka
 */
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long delivered, failed;

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
	(void)rk;
	(void)opaque;
	if (m->err)
		failed++;
	else
		delivered++;
}

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static rd_kafka_conf_t *config(const char *bootstrap, int argc, char **argv, int first) {
	char err[512];
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err) != RD_KAFKA_CONF_OK) {
		fprintf(stderr, "perf: %s\n", err);
		exit(2);
	}
	for (int i = first; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq) {
			fprintf(stderr, "perf: %s: want key=value\n", argv[i]);
			exit(2);
		}
		*eq = 0;
		if (rd_kafka_conf_set(conf, argv[i], eq + 1, err, sizeof err) != RD_KAFKA_CONF_OK) {
			fprintf(stderr, "perf: %s\n", err);
			exit(2);
		}
	}
	return conf;
}

static int produce(const char *bootstrap, const char *topic, long long records, int size, int argc, char **argv) {
	char err[512];
	rd_kafka_conf_t *conf = config(bootstrap, argc, argv, 6);
	rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
	if (!rk) {
		fprintf(stderr, "perf: %s\n", err);
		return 1;
	}
	/* Random letters, as kbench's and the Java tool's values. */
	char *value = malloc(size);
	for (int i = 0; i < size; i++)
		value[i] = 'A' + rand() % 26;
	double start = now();
	for (long long i = 0; i < records; i++) {
		for (;;) {
			rd_kafka_resp_err_t e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_VALUE(value, size), RD_KAFKA_V_END);
			if (e == RD_KAFKA_RESP_ERR_NO_ERROR)
				break;
			if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
				fprintf(stderr, "perf: produce: %s\n", rd_kafka_err2str(e));
				return 1;
			}
			rd_kafka_poll(rk, 1); /* the queue is full: serve deliveries */
		}
		rd_kafka_poll(rk, 0);
	}
	rd_kafka_flush(rk, 120000);
	double secs = now() - start;
	printf("%lld records, %.3f s, %.1f records/s, %lld failed\n", delivered, secs, delivered / secs, failed);
	rd_kafka_destroy(rk);
	return failed ? 1 : 0;
}

static int consume(const char *bootstrap, const char *topic, long long records, int argc, char **argv) {
	char err[512];
	rd_kafka_conf_t *conf = config(bootstrap, argc, argv, 5);
	rd_kafka_conf_set(conf, "group.id", "perf-rdkafka", err, sizeof err);
	rd_kafka_conf_set(conf, "auto.offset.reset", "earliest", err, sizeof err);
	rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof err);
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
	if (!rk) {
		fprintf(stderr, "perf: %s\n", err);
		return 1;
	}
	rd_kafka_poll_set_consumer(rk);
	rd_kafka_topic_partition_list_t *topics = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(topics, topic, RD_KAFKA_PARTITION_UA);
	rd_kafka_subscribe(rk, topics);
	rd_kafka_topic_partition_list_destroy(topics);
	/* Records are taken a batch at a time from the consumer queue (as
	 * rdkafka_performance -B does, and as kbench and the bare loop poll), so
	 * that the cost of one call per record is not what is measured. */
	rd_kafka_queue_t *queue = rd_kafka_queue_get_consumer(rk);
	static rd_kafka_message_t *batch[10000];
	long long got = 0, bytes = 0;
	double start = 0, last = now();
	while (got < records) {
		ssize_t n = rd_kafka_consume_batch_queue(queue, 100, batch, sizeof batch / sizeof batch[0]);
		double t = now();
		if (n <= 0) {
			if (t - last > 30) {
				fprintf(stderr, "perf: no record for 30 s after %lld\n", got);
				return 1;
			}
			continue;
		}
		for (ssize_t i = 0; i < n; i++) {
			rd_kafka_message_t *m = batch[i];
			if (!m->err && got < records) {
				if (got == 0)
					start = t; /* from the first record, as consumer-perf-test's fetch time */
				got++;
				bytes += m->len;
			}
			rd_kafka_message_destroy(m);
		}
		last = t;
	}
	rd_kafka_queue_destroy(queue);
	double secs = now() - start;
	printf("%lld records, %.3f s, %.1f records/s, %lld bytes\n", got, secs, got / secs, bytes);
	rd_kafka_consumer_close(rk);
	rd_kafka_destroy(rk);
	return 0;
}

int main(int argc, char **argv) {
	if (argc >= 6 && strcmp(argv[1], "produce") == 0)
		return produce(argv[2], argv[3], atoll(argv[4]), atoi(argv[5]), argc, argv);
	if (argc >= 5 && strcmp(argv[1], "consume") == 0)
		return consume(argv[2], argv[3], atoll(argv[4]), argc, argv);
	fprintf(stderr, "usage: perf produce BOOTSTRAP TOPIC RECORDS SIZE [key=value ...]\n"
	                "       perf consume BOOTSTRAP TOPIC RECORDS [key=value ...]\n");
	return 2;
}
