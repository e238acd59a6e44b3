import rateLimit from '@fastify/rate-limit';

export const limits = {
  max: 100, // requests per second and merchant
  timeWindow: 1000,
};

export default rateLimit;
