import { type Admin, type AdminConfig, createAdmin } from './admin.js';
import { ClientContext, type KafkaConfig } from './config.js';
import { type Consumer, type ConsumerConfig, createConsumer } from './consumer.js';
import type { Logger } from './logger.js';
import { createProducer, type Producer, type ProducerConfig } from './producer.js';

/**
 * kafkajs's entry point: `new Kafka({ brokers, clientId, ssl, sasl, logLevel, logCreator })`,
 * then `kafka.producer()`, `kafka.consumer({ groupId })`, `kafka.admin()`. Nothing connects
 * until a client's `connect()`; each client opens its own cluster connections, as in kafkajs.
 */
export class Kafka {
  readonly #context: ClientContext;

  constructor(config: KafkaConfig) {
    this.#context = new ClientContext(config);
  }

  producer(config?: ProducerConfig): Producer {
    return createProducer(this.#context, config ?? {});
  }

  consumer(config: ConsumerConfig): Consumer {
    return createConsumer(this.#context, config);
  }

  admin(config?: AdminConfig): Admin {
    return createAdmin(this.#context, config ?? {});
  }

  logger(): Logger {
    return this.#context.logger;
  }
}
