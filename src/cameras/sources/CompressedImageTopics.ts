/**
 * Where a ROS camera's frames come from: sensor_msgs/msg/CompressedImage
 * topics (subscribed with the QoS camera drivers publish at) and the clock
 * their stamps are on (sim time under use_sim_time). The ROS 2 host hands
 * this out (Ros2Host.imageTopics); the cameras never see a ROS node.
 */
export interface CompressedImageTopics {
  /** Every message on `topic`, as rclnodejs delivers it; returns an unsubscribe function. */
  subscribe(topic: string, onMessage: (message: unknown) => void): () => void;
  /** The clock the publisher's header stamps are compared with, in ms. */
  nowMs(): number;
}
